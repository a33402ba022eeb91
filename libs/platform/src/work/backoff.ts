export interface BackoffOptions {
  /** The first delay (step 0). */
  firstMs: number;
  /** No delay exceeds this. */
  capMs: number;
  /** Spreads each delay uniformly over ±`jitter` of itself (0 … 1), within the cap. Default 0. */
  jitter?: number;
}

/**
 * Exponential backoff: `firstMs` doubled `step` times (step 0, 1, 2 …),
 * capped at `capMs`, optionally jittered. The one formula every retry of the
 * platform and the services uses.
 */
export function backoffMs(step: number, { firstMs, capMs, jitter = 0 }: BackoffOptions): number {
  const delay = Math.min(firstMs * 2 ** Math.max(0, step), capMs);
  return jitter > 0 ? Math.min(capMs, Math.round(jittered(delay, jitter))) : delay;
}

/** `ms` spread uniformly over ±`jitter` of itself (0 … 1): the one jitter of backoffs, loops and retry schedules. */
export function jittered(ms: number, jitter: number, random: () => number = Math.random): number {
  return ms * (1 + jitter * (2 * random() - 1));
}
