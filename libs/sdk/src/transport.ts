/**
 * The fetch the typed client sends through: bearer auth, idempotency keys
 * filled in, and retries where they are safe.
 *
 * Safe to retry:
 * - 429 on any request: a rejected request does no work (D-5); the wait is
 *   the answer's Retry-After, up to `maxRetryAfterMs`.
 * - 503 and network failures only for requests that cannot apply twice:
 *   reads (GET, HEAD), event batches whose every event has an `external_id`
 *   (deduplicated server-side, D-15), session starts with an
 *   `idempotency_key` (D-28), and closes (closing a closed session returns
 *   it unchanged, D-26). Jittered exponential backoff, bounded by
 *   `maxAttempts` and a time budget.
 * Pause and resume are never retried on 503: a pause that went through
 * would answer the retry 409 SESSION_STATE_CONFLICT (D-27).
 */

export interface RetryOptions {
  /** Attempts in all, the first included (1: never retry). */
  maxAttempts: number;
  /** First backoff step for 503 and network failures; doubles per attempt, with full jitter. */
  baseDelayMs: number;
  /** Longest backoff step. */
  maxDelayMs: number;
  /** Longest Retry-After honoured; a longer one is not waited for (the error is thrown at once). */
  maxRetryAfterMs: number;
  /** Time from the first attempt after which no retry starts. */
  budgetMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
  budgetMs: 60_000,
};

/** Seams for tests: the clock, the waiting, the randomness and the ids. */
export interface TransportHooks {
  sleep: (ms: number, signal?: AbortSignal | null) => Promise<void>;
  random: () => number;
  now: () => number;
  newId: () => string;
}

export const DEFAULT_HOOKS: TransportHooks = {
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
  random: Math.random,
  now: Date.now,
  newId: () => globalThis.crypto.randomUUID(),
};

export type FetchLike = (input: Request) => Promise<Response>;

export interface TransportOptions {
  token: string;
  /** The path of the base URL (`/v1`): request paths are matched relative to it. */
  basePath: string;
  fetch: FetchLike;
  retry: RetryOptions;
  hooks: TransportHooks;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Fills the keys that make a write safe to repeat, where the caller left them
 * out: `external_id` on each event (D-15, D-16) and `idempotency_key` on a
 * session start (D-28). An explicit `null` is the caller's choice and kept.
 * Returns the body and whether the request is now safe to retry.
 */
export function withIdempotencyKeys(method: string, path: string, body: unknown, newId: () => string): { body: unknown; safe: boolean } {
  if (method === 'GET' || method === 'HEAD') return { body, safe: true };
  if (method !== 'POST') return { body, safe: false };
  if (path === '/activity/events' && isObject(body)) {
    const fill = (event: unknown): unknown => (isObject(event) && !('external_id' in event) ? { ...event, external_id: newId() } : event);
    const filled = Array.isArray(body.events) ? { ...body, events: body.events.map(fill) } : fill(body);
    const events: unknown[] = isObject(filled) && Array.isArray(filled.events) ? filled.events : [filled];
    return { body: filled, safe: events.every((e) => isObject(e) && typeof e.external_id === 'string' && e.external_id !== '') };
  }
  if (path === '/sessions' && isObject(body)) {
    const filled = 'idempotency_key' in body ? body : { ...body, idempotency_key: newId() };
    return { body: filled, safe: typeof filled.idempotency_key === 'string' && filled.idempotency_key !== '' };
  }
  if (/^\/sessions\/[^/]+\/close$/.test(path)) return { body, safe: true };
  return { body, safe: false };
}

/** Retry-After in milliseconds (delta-seconds or an HTTP date), or null. */
export function retryAfterMs(response: Response, now: number): number | null {
  const value = response.headers.get('retry-after');
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** A failure of fetch itself (no HTTP answer), as opposed to the caller aborting. */
const isNetworkError = (err: unknown, signal: AbortSignal | null): boolean => !signal?.aborted && err instanceof TypeError;

export function createTransport(options: TransportOptions): FetchLike {
  const { retry, hooks } = options;
  return async (input: Request): Promise<Response> => {
    const url = new URL(input.url);
    const path = url.pathname.startsWith(options.basePath) ? url.pathname.slice(options.basePath.length) : url.pathname;
    const method = input.method.toUpperCase();
    const text = method === 'GET' || method === 'HEAD' ? '' : await input.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined; // not JSON: sent as it is, never retried on 503
    }
    const { body, safe } =
      parsed === undefined
        ? { body: undefined, safe: method === 'GET' || method === 'HEAD' }
        : withIdempotencyKeys(method, path, parsed, hooks.newId);
    const payload = body === undefined ? text || undefined : JSON.stringify(body);
    const headers = new Headers(input.headers);
    headers.set('authorization', `Bearer ${options.token}`);
    const started = hooks.now();

    for (let attempt = 1; ; attempt++) {
      const request = new Request(input.url, { method, headers, body: payload, signal: input.signal, redirect: input.redirect });
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await options.fetch(request);
      } catch (err) {
        if (!safe || !isNetworkError(err, input.signal)) throw err;
        failure = err;
      }
      const delay = response ? delayFor(response, attempt, safe) : backoff(attempt);
      const exhausted = attempt >= retry.maxAttempts || delay === null || hooks.now() - started + delay > retry.budgetMs;
      if (exhausted) {
        if (response) return response;
        throw failure;
      }
      // The answer is not used: free its connection before waiting.
      await response?.body?.cancel().catch(() => undefined);
      await hooks.sleep(delay, input.signal);
    }
  };

  function backoff(attempt: number): number {
    const ceiling = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(hooks.random() * ceiling);
  }

  /** How long to wait before the next attempt after this answer, or null when it is final. */
  function delayFor(response: Response, attempt: number, safe: boolean): number | null {
    if (response.status === 429) {
      const wait = retryAfterMs(response, hooks.now()) ?? backoff(attempt);
      return wait <= retry.maxRetryAfterMs ? wait : null;
    }
    if (response.status === 503 && safe) {
      const hinted = retryAfterMs(response, hooks.now());
      const wait = Math.max(backoff(attempt), hinted ?? 0);
      return wait <= retry.maxRetryAfterMs ? wait : null;
    }
    return null;
  }
}
