/**
 * Issue 17 (ADR 0012, third session): kafkajs 2.2.4's request queue spins.
 *
 * `RequestQueue.scheduleCheckPendingRequests` runs after every response and
 * schedules the next check even when nothing is pending: with no throttling
 * (`throttledUntil` is -1) its delay is negative, Node clamps it to 1 ms, and
 * the check schedules itself again. Every broker connection of every client
 * (producer, admin, each consumer) so woke the event loop a thousand times a
 * second for ever — most of what an idle app burned (the profiles' timer
 * functions, `scheduleCheckPendingRequests`, `listOnTimeout`). Upstream: kafkajs
 * issue #1556, fix proposed in pull request #1667, not released.
 *
 * The replacement schedules a check only while requests wait in the queue:
 * at the end of the client-side throttle, or after 10 ms when the queue is
 * merely full (kafkajs' own CHECK_PENDING_REQUESTS_INTERVAL) — what the
 * original did whenever `pending` was not empty. With an empty queue nothing
 * can be waiting: `push` schedules a check when it queues a request, and a
 * response or a timeout checks the queue again.
 */
interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs' delay between checks of a full (not throttled) queue. */
export const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

/** The patched scheduler, on a request queue's state (exported for the unit test). */
export function scheduleCheckPendingRequests(this: RequestQueueInternals): void {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
  );
}

let installed = false;

/** Installs the scheduler on kafkajs' RequestQueue (once per process; kafkajs must be 2.x with that method). */
export function patchKafkajsRequestQueue(): void {
  if (installed) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- kafkajs' internal module has no types or exports map
  const RequestQueue = require('kafkajs/src/network/requestQueue') as { prototype: Partial<RequestQueueInternals> };
  if (typeof RequestQueue.prototype.scheduleCheckPendingRequests !== 'function') {
    throw new Error('kafkajs RequestQueue.scheduleCheckPendingRequests not found: review libs/platform/src/kafka/kafkajs-request-queue.ts');
  }
  RequestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  installed = true;
}
