import {
  CHECK_PENDING_REQUESTS_INTERVAL_MS,
  patchKafkajsRequestQueue,
  REQUEST_TIMEOUT_CHECK_MS,
  watchedRequestQueues,
} from './kafkajs-request-queue';

interface Entry {
  correlationId: number;
  apiName: string;
  resolve: () => void;
  reject: (err: Error) => void;
}
const entry = (correlationId: number, reject: (err: Error) => void = () => undefined): Entry => ({
  correlationId,
  apiName: 'Fetch',
  resolve: () => undefined,
  reject,
});

interface Queue {
  pending: unknown[];
  inflight: Map<number, unknown>;
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  maybeThrottle(ms: number): void;
  push(request: { entry: Entry; expectResponse: boolean; sendRequest: () => void }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  destroy(): void;
  scheduleRequestTimeoutCheck(): void;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- kafkajs' internal module, the one the patch replaces a method of
const RequestQueue = require('kafkajs/src/network/requestQueue') as new (options: object) => Queue;
const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function queue(maxInFlightRequests?: number, enforceRequestTimeout = false, isConnected = () => true): Queue {
  return new RequestQueue({
    maxInFlightRequests,
    requestTimeout: 1_000,
    enforceRequestTimeout,
    clientId: 't',
    broker: 'b',
    logger,
    isConnected,
  });
}

describe('kafkajs request queue scheduling', () => {
  beforeAll(() => patchKafkajsRequestQueue());
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('schedules nothing once a response leaves the queue empty (kafkajs 2.2.4 re-armed a 1 ms timer for ever)', () => {
    const q = queue();
    const sent: number[] = [];
    q.push({ entry: entry(1), expectResponse: true, sendRequest: () => sent.push(1) });
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(sent).toEqual([1]);
    expect(q.throttleCheckTimeoutId).toBeNull();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('sends a request queued behind a full queue when the one in flight is answered', () => {
    const q = queue(1);
    const sent: number[] = [];
    q.push({ entry: entry(1), expectResponse: true, sendRequest: () => sent.push(1) });
    q.push({ entry: entry(2), expectResponse: true, sendRequest: () => sent.push(2) });
    expect(sent).toEqual([1]);
    expect(q.pending).toHaveLength(1);
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(sent).toEqual([1, 2]);
    q.fulfillRequest({ correlationId: 2, payload: Buffer.alloc(0), size: 0 });
    jest.advanceTimersByTime(CHECK_PENDING_REQUESTS_INTERVAL_MS * 10);
    expect(jest.getTimerCount()).toBe(0);
    q.destroy();
  });

  it('sends a request held by client-side throttling when the throttle ends', () => {
    const q = queue();
    const sent: number[] = [];
    q.maybeThrottle(500);
    q.push({ entry: entry(1), expectResponse: true, sendRequest: () => sent.push(1) });
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(499);
    expect(sent).toEqual([]);
    jest.advanceTimersByTime(2);
    expect(sent).toEqual([1]);
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    expect(jest.getTimerCount()).toBe(0);
  });

  it('checks the requests in flight of every queue for timeouts on one shared timer, as each queue did on its own', () => {
    const [a, b] = [queue(undefined, true), queue(undefined, true)];
    a.scheduleRequestTimeoutCheck();
    b.scheduleRequestTimeoutCheck();
    expect(watchedRequestQueues()).toBe(2);
    expect(jest.getTimerCount()).toBe(1);
    const failed: string[] = [];
    a.push({ entry: entry(1, (err) => failed.push(err.name)), expectResponse: true, sendRequest: () => undefined });
    jest.advanceTimersByTime(1_000 - REQUEST_TIMEOUT_CHECK_MS);
    expect(failed).toEqual([]);
    jest.advanceTimersByTime(2 * REQUEST_TIMEOUT_CHECK_MS);
    expect(failed).toEqual(['KafkaJSRequestTimeoutError']);
    a.destroy();
    expect(jest.getTimerCount()).toBe(1);
    b.destroy();
    expect(watchedRequestQueues()).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('drops a queue whose connection is gone, as kafkajs did', () => {
    let connected = true;
    const q = queue(undefined, true, () => connected);
    q.scheduleRequestTimeoutCheck();
    expect(watchedRequestQueues()).toBe(1);
    connected = false;
    jest.advanceTimersByTime(REQUEST_TIMEOUT_CHECK_MS);
    expect(watchedRequestQueues()).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
  });
});
