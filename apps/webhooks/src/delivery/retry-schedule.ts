import { jittered } from '@worktrack/platform';

/** D-55: a `Retry-After` never pushes the next attempt further than this. */
export const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * When the next attempt goes, after `attempts` attempts of which the last
 * failed: null when the schedule is exhausted. The n-th delay of the
 * schedule, varied by ±`jitter`, and never before a `Retry-After`
 * (capped at 24 h) the endpoint sent.
 */
export function nextAttemptAt(
  schedule: readonly number[],
  jitter: number,
  attempts: number,
  now: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): Date | null {
  const base = schedule[attempts];
  if (base === undefined) return null;
  const delay = jittered(base, jitter, random);
  const after = retryAfterMs === null ? 0 : Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  return new Date(now + Math.max(delay, after));
}

/** A `Retry-After` header in milliseconds (delta-seconds or an HTTP date), or null. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
