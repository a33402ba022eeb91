import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ActivityEventInput } from './api-port';

/**
 * The offline queue: events the API could not take yet, one JSON line each,
 * in `queue.ndjson` under the queue directory. Every change is durable before
 * the CLI reports it: appends are fsynced (and the directory when the file is
 * created); removals rewrite the file atomically (temp file, fsync, rename,
 * fsync of the directory). A line cut short by a crash is ignored, never
 * merged with the next one. Events are sent with the external id stored here,
 * so sending one twice (a crash between the API's answer and the rewrite)
 * is deduplicated by the server (D-15).
 */

export interface QueueEntry {
  v: 1;
  /** Which API and credential the event belongs to (see `targetOf`); flushed only with the same. */
  target: string;
  queued_at: string;
  event: ActivityEventInput & { external_id: string };
}

export interface QueueLimits {
  maxEvents: number;
  maxBytes: number;
}

export const DEFAULT_QUEUE_LIMITS: QueueLimits = { maxEvents: 10_000, maxBytes: 16 * 1024 * 1024 };

/** The queue cannot take the events: they were not recorded. */
export class QueueFullError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueueFullError';
  }
}

/** Another process holds the lock for longer than we were willing to wait. */
export class QueueBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueueBusyError';
  }
}

export interface QueueContents {
  entries: QueueEntry[];
  /** Complete lines that are not entries (should not happen; kept aside in rejected.ndjson on the next rewrite). */
  unreadable: string[];
  /** True when the file ends in a line cut short by a crash (ignored). */
  tornTail: boolean;
}

/** `$WORKTRACK_QUEUE_DIR`, else `$XDG_STATE_HOME/worktrack`, else `~/.local/state/worktrack`. */
export function defaultQueueDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.WORKTRACK_QUEUE_DIR) return env.WORKTRACK_QUEUE_DIR;
  const state = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  return join(state, 'worktrack');
}

/** The key of an event on the server (D-15: member, source_type, external_id), within one target. */
export const eventKey = (target: string, event: ActivityEventInput): string =>
  JSON.stringify([target, event.source_type ?? 'custom', event.external_id ?? null]);

const sleep = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/**
 * A lock file created with `wx` (exclusive) holding the owner's pid. A lock
 * whose pid is gone (the owner crashed, e.g. kill -9) is stale and taken
 * over; an empty or unreadable one older than a few seconds too (a crash
 * between create and write).
 */
export class LockFile {
  private held = false;
  constructor(readonly path: string) {}

  /** One attempt; false when a live process holds it. */
  tryAcquire(): boolean {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(this.path, 'wx');
        try {
          writeSync(fd, JSON.stringify({ pid: process.pid, at: new Date().toISOString() }));
        } finally {
          closeSync(fd);
        }
        this.held = true;
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const seen = this.readOwner();
      if (seen === undefined) continue; // released meanwhile: try again
      if (!this.isStale(seen)) return false;
      this.removeStale(seen.raw);
    }
    return false;
  }

  /** Waits up to `timeoutMs` for the lock. */
  acquire(timeoutMs: number): void {
    const deadline = Date.now() + timeoutMs;
    while (!this.tryAcquire()) {
      if (Date.now() >= deadline) {
        const owner = this.readOwner();
        throw new QueueBusyError(`${this.path} is held by pid ${owner?.pid ?? '?'}`);
      }
      sleep(25);
    }
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    try {
      unlinkSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  /** The pid in the lock (NaN when unreadable), or undefined when there is no lock. */
  ownerPid(): number | undefined {
    return this.readOwner()?.pid;
  }

  private readOwner(): { pid: number; raw: string; ageMs: number } | undefined {
    try {
      const raw = readFileSync(this.path, 'utf8');
      const ageMs = Date.now() - statSync(this.path).mtimeMs;
      let pid = Number.NaN;
      try {
        pid = Number((JSON.parse(raw) as { pid?: unknown }).pid);
      } catch {
        // empty or cut short: judged by age
      }
      return { pid, raw, ageMs };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  private isStale(owner: { pid: number; ageMs: number }): boolean {
    if (Number.isInteger(owner.pid) && owner.pid > 0) return owner.pid !== process.pid && !isAlive(owner.pid);
    return owner.ageMs > 5_000;
  }

  /**
   * Moves the stale lock aside by rename (atomic: only one process wins) and
   * checks that what it moved is still the stale lock; if another process
   * took the lock in between, its lock is put back.
   */
  private removeStale(staleRaw: string): void {
    const grave = `${this.path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      renameSync(this.path, grave);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    try {
      if (readFileSync(grave, 'utf8') !== staleRaw) linkSync(grave, this.path);
    } catch {
      // someone created a new lock meanwhile: theirs stands
    } finally {
      unlinkSync(grave);
    }
  }
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function isEntry(value: unknown): value is QueueEntry {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Partial<QueueEntry>;
  return (
    entry.v === 1 &&
    typeof entry.target === 'string' &&
    typeof entry.event === 'object' &&
    entry.event !== null &&
    typeof entry.event.event_type === 'string' &&
    typeof entry.event.external_id === 'string'
  );
}

/** Parses the queue file's text: complete lines only; a last line without its newline is a torn append. */
export function parseQueue(text: string): QueueContents {
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  const entries: QueueEntry[] = [];
  const unreadable: string[] = [];
  for (const line of lines) {
    if (line === '') continue; // the separator written after a torn tail
    try {
      const value: unknown = JSON.parse(line);
      if (isEntry(value)) entries.push(value);
      else unreadable.push(line);
    } catch {
      unreadable.push(line);
    }
  }
  return { entries, unreadable, tornTail: tail !== '' };
}

export class OfflineQueue {
  readonly file: string;
  readonly rejectedFile: string;
  private readonly mutex: LockFile;
  readonly flushLock: LockFile;

  constructor(
    readonly dir: string,
    readonly limits: QueueLimits = DEFAULT_QUEUE_LIMITS,
    private readonly lockWaitMs = 10_000,
  ) {
    this.file = join(dir, 'queue.ndjson');
    this.rejectedFile = join(dir, 'rejected.ndjson');
    this.mutex = new LockFile(join(dir, 'queue.lock'));
    this.flushLock = new LockFile(join(dir, 'flush.lock'));
  }

  /** The queue's contents (empty when there is no file). */
  read(): QueueContents {
    try {
      return parseQueue(readFileSync(this.file, 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], unreadable: [], tornTail: false };
      throw err;
    }
  }

  /**
   * Appends events durably (fsync before returning). Refuses, appending
   * nothing, when the queue would exceed its bounds.
   */
  append(entries: QueueEntry[]): void {
    if (entries.length === 0) return;
    this.ensureDir();
    this.locked(() => {
      const text = entries.map((e) => `${JSON.stringify(e)}\n`).join('');
      const bytes = Buffer.byteLength(text);
      const created = !existsSync(this.file);
      const fd = openSync(this.file, 'a+', 0o600);
      try {
        const size = fstatSync(fd).size;
        const current = size === 0 ? 0 : this.read().entries.length;
        if (current + entries.length > this.limits.maxEvents) {
          throw new QueueFullError(
            `offline queue full: ${current} events queued, ${entries.length} more would exceed ${this.limits.maxEvents}; run \`worktrack flush\` when the API is reachable`,
          );
        }
        if (size + bytes > this.limits.maxBytes) {
          throw new QueueFullError(
            `offline queue full: ${size} bytes queued, ${bytes} more would exceed ${this.limits.maxBytes}; run \`worktrack flush\` when the API is reachable`,
          );
        }
        // A crash mid-append leaves a line without its newline: end it so the new line stands alone.
        const torn = size > 0 && lastByte(fd, size) !== 0x0a;
        writeSync(fd, torn ? `\n${text}` : text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      if (created) fsyncDir(this.dir);
    });
  }

  /**
   * Removes the entries whose keys are in `sent` from the file as it is now
   * (others may have appended meanwhile), atomically. Lines that are not
   * entries move to rejected.ndjson; a torn tail is dropped.
   */
  remove(sent: Set<string>): void {
    this.locked(() => {
      const now = this.read();
      const keep = now.entries.filter((e) => !sent.has(eventKey(e.target, e.event)));
      if (now.unreadable.length > 0) this.reject(now.unreadable.map((line) => ({ reason: 'unreadable line in the queue', line })));
      if (keep.length === now.entries.length && now.unreadable.length === 0 && !now.tornTail) return;
      this.rewrite(keep);
    });
  }

  /** Keeps events the API refused (4xx other than auth) aside, durably, with the reason. */
  reject(records: Array<Record<string, unknown>>): void {
    if (records.length === 0) return;
    this.ensureDir();
    const fd = openSync(this.rejectedFile, 'a', 0o600);
    try {
      writeSync(fd, records.map((r) => `${JSON.stringify({ rejected_at: new Date().toISOString(), ...r })}\n`).join(''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  private rewrite(entries: QueueEntry[]): void {
    if (entries.length === 0) {
      try {
        unlinkSync(this.file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      fsyncDir(this.dir);
      return;
    }
    const temp = `${this.file}.tmp-${process.pid}`;
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.file);
    fsyncDir(this.dir);
  }

  private locked<T>(work: () => T): T {
    this.mutex.acquire(this.lockWaitMs);
    try {
      return work();
    } finally {
      this.mutex.release();
    }
  }

  private ensureDir(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }
}

function lastByte(fd: number, size: number): number {
  const one = Buffer.alloc(1);
  readSync(fd, one, 0, 1, size - 1);
  return one[0] ?? 0x0a;
}
