/** One change of a session as the projection keeps it (SessionChanged, D-22 … D-26). */
export interface StoredChange {
  revision: number;
  change: string;
  changedAt: Date;
  closedAt: Date | null;
}

export interface Pause {
  pausedAt: Date;
  resumedAt: Date | null;
}

/**
 * A session's pauses from its changes in revision order: a `paused` change
 * opens one at its time, `resumed` ends it at its time, a close ends it at
 * the session's end; every pause is cut to the session's end (a back-dated
 * close drops the pauses after it, as the sessions service does).
 */
export function pausesOf(changes: StoredChange[], closedAt: Date | null): Pause[] {
  const pauses: Pause[] = [];
  let open: Date | null = null;
  for (const c of [...changes].sort((a, b) => a.revision - b.revision)) {
    if (c.change === 'paused') {
      open ??= c.changedAt;
    } else if (c.change === 'resumed' && open) {
      pauses.push({ pausedAt: open, resumedAt: c.changedAt < open ? open : c.changedAt });
      open = null;
    } else if (c.change === 'closed' || c.change === 'backdated' || c.change === 'auto_closed') {
      if (open) pauses.push({ pausedAt: open, resumedAt: c.closedAt ?? c.changedAt });
      open = null;
    }
  }
  if (open) pauses.push({ pausedAt: open, resumedAt: null });
  if (!closedAt) return pauses;
  return pauses
    .filter((p) => p.pausedAt < closedAt)
    .map((p) => ({ pausedAt: p.pausedAt, resumedAt: p.resumedAt === null || p.resumedAt > closedAt ? closedAt : p.resumedAt }));
}
