import type { SessionV1 } from '@worktrack/contracts';
import type { SessionEntity } from './entities/session.entity';

/**
 * D-49: the time a session spent paused, from its pauses as the statement
 * saw them: a statement that pauses, resumes or closes sees the pauses as
 * they were before it (its own change is in the same statement), so the
 * session's new state settles the open pause — a paused session's pause
 * started at its last change, any other state ended it then (or at the
 * close), and a close cuts every pause at `closed_at`.
 */
export function pauseTotals(s: SessionEntity): { pausedMs: number; pausedSince: string | null } {
  const intervals = (s.pauses ?? []).map((p) => ({ from: p.pausedAt.getTime(), to: p.resumedAt ? p.resumedAt.getTime() : null }));
  const open = intervals.find((p) => p.to === null);
  if (s.state === 'paused' && !open) intervals.push({ from: s.updatedAt.getTime(), to: null });
  if (s.state !== 'paused' && open) open.to = s.closedAt ? s.closedAt.getTime() : s.updatedAt.getTime();
  const end = s.closedAt ? s.closedAt.getTime() : Number.POSITIVE_INFINITY;
  let pausedMs = 0;
  let pausedSince: string | null = null;
  for (const p of intervals) {
    const from = Math.max(p.from, s.startedAt.getTime());
    if (p.to === null) {
      if (from < end) pausedSince = new Date(from).toISOString();
      continue;
    }
    pausedMs += Math.max(0, Math.min(p.to, end) - from);
  }
  return { pausedMs, pausedSince };
}

/** A session as the contract shows it. */
export const toSessionV1 = (s: SessionEntity): SessionV1 => ({
  ...pauseTotals(s),
  sessionId: s.id,
  intentText: s.intentText,
  state: s.state,
  source: s.source,
  workType: s.workType,
  goalId: s.goalId,
  projectId: s.projectId,
  startedAt: s.startedAt.toISOString(),
  closedAt: s.closedAt ? s.closedAt.toISOString() : null,
  userTags: s.userTags,
  createdAt: s.createdAt.toISOString(),
});
