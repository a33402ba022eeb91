/**
 * ADR 0012 decision 7 (idle): kafkajs 2.2.4's request queue spins,
 * and keeps a timer per connection (below).
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
  inflight: Map<number, { sentAt: number; requestTimeout: number; timeoutRequest(): void }>;
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  enforceRequestTimeout: boolean;
  requestTimeout: number;
  isConnected(): boolean;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
  scheduleRequestTimeoutCheck(): void;
  destroy(): void;
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

/**
 * The second timer of every connection: kafkajs checks its requests in flight
 * for timeouts with a `setInterval` of min(requestTimeout, 100 ms) per
 * request queue — ten wake-ups a second for each of the process's broker
 * connections (three or four per consumer, producer and admin client). One
 * timer for all the process's queues does the same checks at the same pace.
 */
export const REQUEST_TIMEOUT_CHECK_MS = 100;
const timedQueues = new Set<RequestQueueInternals>();
let timeoutTimer: NodeJS.Timeout | undefined;

/** One pass of kafkajs' own per-queue check, over every queue that enforces request timeouts. */
export function checkRequestTimeouts(now = Date.now()): void {
  for (const queue of timedQueues) {
    queue.inflight.forEach((request) => {
      if (now - request.sentAt > request.requestTimeout) request.timeoutRequest();
    });
    if (!queue.isConnected()) queue.destroy();
  }
}

function scheduleRequestTimeoutCheck(this: RequestQueueInternals): void {
  if (!this.enforceRequestTimeout) return;
  this.destroy();
  timedQueues.add(this);
  // kafkajs' pace was min(requestTimeout, 100 ms) per queue; every client here has a requestTimeout of seconds.
  timeoutTimer ??= setInterval(() => checkRequestTimeouts(), REQUEST_TIMEOUT_CHECK_MS);
}

function destroy(this: RequestQueueInternals): void {
  timedQueues.delete(this);
  if (timedQueues.size === 0 && timeoutTimer) {
    clearInterval(timeoutTimer);
    timeoutTimer = undefined;
  }
  clearTimeout(this.throttleCheckTimeoutId ?? undefined);
  this.throttleCheckTimeoutId = null;
}

/** How many request queues the shared timeout timer watches (for the unit test). */
export function watchedRequestQueues(): number {
  return timedQueues.size;
}

let installed = false;

/** Installs the scheduler and the shared timeout timer on kafkajs' RequestQueue (once per process; kafkajs must be 2.x with that method). */
export function patchKafkajsRequestQueue(): void {
  if (installed) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- kafkajs' internal module has no types or exports map
  const RequestQueue = require('kafkajs/src/network/requestQueue') as { prototype: Partial<RequestQueueInternals> };
  for (const method of ['scheduleCheckPendingRequests', 'scheduleRequestTimeoutCheck', 'destroy'] as const) {
    if (typeof RequestQueue.prototype[method] !== 'function') {
      throw new Error(`kafkajs RequestQueue.${method} not found: review libs/platform/src/kafka/kafkajs-request-queue.ts`);
    }
  }
  RequestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  RequestQueue.prototype.scheduleRequestTimeoutCheck = scheduleRequestTimeoutCheck;
  RequestQueue.prototype.destroy = destroy;
  installed = true;
}
