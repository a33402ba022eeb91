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

/** A summary's metrics as summed (milliseconds; the cost an exact decimal string). */
export interface SummaryMetrics {
  tracked_ms: number;
  paused_ms: number;
  session_count: number;
  linked_event_count: number;
  outside_session_event_count: number;
  usage_cost: string;
  input_tokens: number;
  output_tokens: number;
}

export const zeroMetrics = (): SummaryMetrics => ({
  tracked_ms: 0,
  paused_ms: 0,
  session_count: 0,
  linked_event_count: 0,
  outside_session_event_count: 0,
  usage_cost: '0',
  input_tokens: 0,
  output_tokens: 0,
});

/**
 * One member's part of a summary grouped by member first (ADR 0018): its groups as the document writes them
 * (comma-separated JSON, or CSV lines, UTF-8), how many, and their totals. Parts are held as text, not compressed
 * one by one: hundreds of small deflate streams cost several times one stream over the joined document (a zlib
 * engine set up per part), and compress half as well.
 */
export interface SummaryPart {
  text: Buffer;
  groups: number;
  totals: SummaryMetrics;
}

/** What a member's part depends on: the member (its kind and zone), its revision, and the request's parameters. */
export interface SummaryPartKey extends Omit<SummaryKey, 'members' | 'revision'> {
  member: { member_id: string; kind: string; timezone: string };
  revision: string;
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

/** The filters that are set, by name, in a fixed order. */
const filtersOf = (k: { filters: Record<string, unknown> }): Array<[string, unknown]> =>
  Object.keys(k.filters)
    .filter((name) => k.filters[name] !== undefined && k.filters[name] !== null)
    .sort()
    .map((name) => [name, k.filters[name]]);

/** An entry's share of the budget: its bytes (a document's compressed, a part's text), and what else it holds. */
const sizeOf = (entry: CachedSummary | SummaryPart): number => ('head' in entry ? entry.head.bytes.length : entry.text.length + 256);

/**
 * Rendered summaries of this replica, least recently used out first, bounded by their compressed bytes (ADR 0018).
 * A key holds the workspace's revision read at request time, so an entry is never served after a write to the
 * workspace (the revision rises in the write's own transaction) and replicas need not tell each other anything.
 */
@Injectable()
export class SummaryCache {
  private readonly entries = new Map<string, CachedSummary | SummaryPart>();
  private bytes = 0;

  constructor(private readonly config: ReportingConfig) {}

  /** The key's text: every field spelled in a fixed order, the member list sorted, hashed. */
  static keyOf(k: SummaryKey): string {
    const members = k.members.map((m) => `${m.member_id}\u001f${m.kind}\u001f${m.timezone}`).sort();
    const text = JSON.stringify(['document', k.workspaceId, k.revision, k.format, k.from, k.to, k.tz, k.groupBy, filtersOf(k), members]);
    return createHash('sha256').update(text).digest('base64');
  }

  /** A member's part's key: as `keyOf`, with the one member and its own revision. */
  static partKeyOf(k: SummaryPartKey): string {
    const member = [k.member.member_id, k.member.kind, k.member.timezone];
    const text = JSON.stringify(['part', k.workspaceId, k.revision, k.format, k.from, k.to, k.tz, k.groupBy, filtersOf(k), member]);
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
    const held = this.touch(key);
    return held && 'head' in held ? held : undefined;
  }

  getPart(key: string): SummaryPart | undefined {
    const held = this.touch(key);
    return held && 'text' in held ? held : undefined;
  }

  set(key: string, value: CachedSummary | SummaryPart): void {
    const size = sizeOf(value);
    if (!this.enabled || size > this.config.REPORT_CACHE_BYTES) return;
    const held = this.entries.get(key);
    if (held) {
      this.entries.delete(key);
      this.bytes -= sizeOf(held);
    }
    this.entries.set(key, value);
    this.bytes += size;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.config.REPORT_CACHE_BYTES) break;
      this.entries.delete(oldest);
      this.bytes -= sizeOf(entry);
    }
  }

  /** The entry under `key`, made the most recently used. */
  private touch(key: string): CachedSummary | SummaryPart | undefined {
    const held = this.entries.get(key);
    if (!held) return undefined;
    this.entries.delete(key);
    this.entries.set(key, held);
    return held;
  }

  /** Bytes held (for tests and metrics). */
  get size(): number {
    return this.bytes;
  }
}
