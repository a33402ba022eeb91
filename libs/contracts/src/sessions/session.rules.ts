import type { ErrorDetail } from '../error-codes';
import { MAX_MANUAL_FUTURE_SKEW_MS, type SessionSource } from './session';

export interface StartTimes {
  source: SessionSource;
  /** RFC 3339, already checked as such; absent or null when not given. */
  startedAt?: string | null;
  endedAt?: string | null;
}

/**
 * The spec's POST /sessions rules on times, and D-24, as one function the
 * gateway (edge validation) and the sessions service share: a timer starts
 * now and takes no times; a manual block needs both, `started_at < ended_at
 * <= now + 1 min`, and (where the deployment's maximum is known: the
 * service) a duration of at most the maximum session duration. Paths are the
 * API's field names.
 */
export function startTimesIssues(body: StartTimes, nowMs: number, maxDurationMs?: number): ErrorDetail[] {
  const given = (v: string | null | undefined): v is string => v !== undefined && v !== null;
  const issues: ErrorDetail[] = [];
  if (body.source === 'timer') {
    if (given(body.startedAt)) issues.push({ path: 'started_at', issue: 'started_at is only for manual sessions (a timer starts now)' });
    if (given(body.endedAt)) issues.push({ path: 'ended_at', issue: 'ended_at is only for manual sessions' });
    return issues;
  }
  if (!given(body.startedAt)) issues.push({ path: 'started_at', issue: 'started_at is required when source is manual' });
  if (!given(body.endedAt)) issues.push({ path: 'ended_at', issue: 'ended_at is required when source is manual' });
  if (!given(body.startedAt) || !given(body.endedAt)) return issues;
  const start = Date.parse(body.startedAt);
  const end = Date.parse(body.endedAt);
  if (end <= start) issues.push({ path: 'ended_at', issue: 'ended_at must be after started_at' });
  if (end > nowMs + MAX_MANUAL_FUTURE_SKEW_MS) issues.push({ path: 'ended_at', issue: 'ended_at may be at most 1 minute in the future' });
  if (maxDurationMs !== undefined && end - start > maxDurationMs) {
    issues.push({ path: 'ended_at', issue: `a session may last at most ${maxDurationMs / 60_000} minutes (the maximum session duration)` });
  }
  return issues;
}
