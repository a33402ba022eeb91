import { createHash } from 'node:crypto';
import { constants, crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { Injectable } from '@nestjs/common';
import { ReportingConfig } from '../reporting.config';

/** Level 1: the repetitive document shrinks about fifty-fold at a few milliseconds per megabyte. */
const LEVEL = 1;

/**
 * A document's head compressed as the start of a gzip stream: the gzip header and deflate blocks ending in a sync
 * flush (byte-aligned, no final block, no trailer), with the head's CRC-32 and length for the trailer.
 */
export interface GzipHead {
  bytes: Buffer;
  crc: number;
  length: number;
}

export function gzipHead(text: Buffer): GzipHead {
  return { bytes: gzipSync(text, { level: LEVEL, finishFlush: constants.Z_SYNC_FLUSH }), crc: crc32(text), length: text.length };
}

/**
 * The whole gzip member: the head's bytes, the tail as a fresh raw deflate stream (its last block final), then
 * the trailer — the CRC-32 continued over the tail, and the length mod 2^32 (RFC 1952). The head's stream ends
 * byte-aligned after a sync flush, so a new deflate stream may follow it; the tail refers to nothing before it.
 */
export function gzipWithTail(head: GzipHead, tail: string): Buffer {
  const text = Buffer.from(tail, 'utf8');
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(text, head.crc) >>> 0, 0);
  trailer.writeUInt32LE((head.length + text.length) % 2 ** 32, 4);
  return Buffer.concat([head.bytes, deflateRawSync(text, { level: LEVEL }), trailer]);
}

/** What a cached summary holds besides its compressed head: the meta fields that do not change with `as_of`. */
export interface CachedSummary {
  head: GzipHead;
  totals: Record<string, unknown>;
}

/** The parts of a summary request a cached document depends on (D-50, D-52). */
export interface SummaryKey {
  workspaceId: string;
  revision: string;
  format: string;
  from: string;
  to: string;
  tz: string;
  groupBy: readonly string[];
  filters: Record<string, unknown>;
  /** D-52: the visible members as the summary reads them (id, kind, zone), in any order. */
  members: ReadonlyArray<{ member_id: string; kind: string; timezone: string }>;
}

/**
 * Rendered summaries of this replica, least recently used out first, bounded by their compressed bytes (ADR 0018).
 * A key holds the workspace's revision read at request time, so an entry is never served after a write to the
 * workspace (the revision rises in the write's own transaction) and replicas need not tell each other anything.
 */
@Injectable()
export class SummaryCache {
  private readonly entries = new Map<string, CachedSummary>();
  private bytes = 0;

  constructor(private readonly config: ReportingConfig) {}

  /** The key's text: every field spelled in a fixed order, the member list sorted, hashed. */
  static keyOf(k: SummaryKey): string {
    const members = k.members.map((m) => `${m.member_id}\u001f${m.kind}\u001f${m.timezone}`).sort();
    const filters = Object.keys(k.filters)
      .filter((name) => k.filters[name] !== undefined && k.filters[name] !== null)
      .sort()
      .map((name) => [name, k.filters[name]]);
    const text = JSON.stringify([k.workspaceId, k.revision, k.format, k.from, k.to, k.tz, k.groupBy, filters, members]);
    return createHash('sha256').update(text).digest('base64');
  }

  get enabled(): boolean {
    return this.config.REPORT_CACHE_BYTES > 0;
  }

  /** Whether a document of this many characters is worth keeping. */
  worthKeeping(documentLength: number): boolean {
    return this.enabled && documentLength >= this.config.REPORT_CACHE_MIN_BYTES;
  }

  get(key: string): CachedSummary | undefined {
    const held = this.entries.get(key);
    if (!held) return undefined;
    this.entries.delete(key);
    this.entries.set(key, held);
    return held;
  }

  set(key: string, value: CachedSummary): void {
    const size = value.head.bytes.length;
    if (!this.enabled || size > this.config.REPORT_CACHE_BYTES) return;
    const held = this.entries.get(key);
    if (held) {
      this.entries.delete(key);
      this.bytes -= held.head.bytes.length;
    }
    this.entries.set(key, value);
    this.bytes += size;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.config.REPORT_CACHE_BYTES) break;
      this.entries.delete(oldest);
      this.bytes -= entry.head.bytes.length;
    }
  }

  /** Bytes held (for tests and metrics). */
  get size(): number {
    return this.bytes;
  }
}
