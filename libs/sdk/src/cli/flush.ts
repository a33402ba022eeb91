import { ApiFailure, type WorktrackApi } from './api-port';
import { eventKey, type OfflineQueue, type QueueEntry } from './offline-queue';

export const BATCH_SIZE = 100;

export interface FlushResult {
  /** Events the API took (stored now or before: duplicates count here too). */
  sent: number;
  deduplicated: number;
  /** Events the API refused, moved to rejected.ndjson. */
  rejected: number;
  /** Events of this target still queued. */
  remaining: number;
  /** Events of other API addresses or credentials, left alone. */
  otherTargets: number;
  /** Why the flush stopped early, if it did. */
  stoppedBy?: ApiFailure;
  /** Another flush held the lock and we did not wait. */
  busy?: boolean;
}

/** The indexes a 400's `details` name (`events[3].event_type` → 3). */
export function badIndexes(failure: ApiFailure, size: number): Set<number> {
  const bad = new Set<number>();
  for (const detail of failure.details ?? []) {
    const match = /^events\[(\d+)\]/.exec(detail.path);
    if (match && Number(match[1]) < size) bad.add(Number(match[1]));
  }
  return bad;
}

/**
 * Sends this target's queued events in batches of 100, with their stored
 * external ids, and removes each batch from the queue once the API has
 * answered 202. A crash between the answer and the removal leaves the batch
 * queued: the next flush sends it again and the server deduplicates it
 * (D-15), so nothing is stored twice. Events refused with a 4xx move to
 * rejected.ndjson (never dropped silently); an auth failure or an
 * unreachable API stops the flush with the rest still queued.
 */
export async function flushQueue(
  api: WorktrackApi,
  queue: OfflineQueue,
  target: string,
  options: { waitForLockMs: number; onBatch?: (sent: number, total: number) => void },
): Promise<FlushResult> {
  const result: FlushResult = { sent: 0, deduplicated: 0, rejected: 0, remaining: 0, otherTargets: 0 };
  const lock = queue.flushLock;
  const deadline = Date.now() + options.waitForLockMs;
  while (!lock.tryAcquire()) {
    if (Date.now() >= deadline) {
      const all = queue.read().entries;
      result.remaining = all.filter((e) => e.target === target).length;
      result.otherTargets = all.length - result.remaining;
      return { ...result, busy: true };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    const all = queue.read().entries;
    const mine = all.filter((e) => e.target === target);
    result.otherTargets = all.length - mine.length;
    let pending: QueueEntry[] = mine;
    while (pending.length > 0) {
      const batch = pending.slice(0, BATCH_SIZE);
      try {
        const accepted = await api.sendEvents(batch.map((e) => e.event));
        queue.remove(new Set(batch.map((e) => eventKey(e.target, e.event))));
        result.sent += batch.length;
        result.deduplicated += accepted.deduplicated;
        pending = pending.slice(batch.length);
        options.onBatch?.(result.sent, mine.length);
      } catch (err) {
        if (!(err instanceof ApiFailure) || err.kind !== 'rejected') {
          if (err instanceof ApiFailure) {
            result.stoppedBy = err;
            break;
          }
          throw err;
        }
        // D-17: the batch was refused whole. Set aside the events it names (or
        // all of them when it names none) and send the others again.
        const bad = badIndexes(err, batch.length);
        const refused = bad.size > 0 ? batch.filter((_, i) => bad.has(i)) : batch;
        queue.reject(refused.map((entry) => ({ code: err.code, message: err.message, details: err.details, entry })));
        queue.remove(new Set(refused.map((e) => eventKey(e.target, e.event))));
        result.rejected += refused.length;
        const refusedSet = new Set(refused);
        pending = pending.filter((e) => !refusedSet.has(e));
      }
    }
    result.remaining = pending.length;
    return result;
  } finally {
    lock.release();
  }
}
