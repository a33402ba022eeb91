import { pausesOf, type StoredChange } from './pauses';

const c = (revision: number, change: string, changedAt: string, closedAt: string | null = null): StoredChange => ({
  revision,
  change,
  changedAt: new Date(changedAt),
  closedAt: closedAt ? new Date(closedAt) : null,
});

describe('pausesOf (a session’s pauses from its changes, whatever order they were stored in)', () => {
  it('pairs pause and resume, and ends an open pause at the close', () => {
    const changes = [
      c(4, 'closed', '2026-01-01T12:00:00Z', '2026-01-01T12:00:00Z'),
      c(1, 'created', '2026-01-01T09:00:00Z'),
      c(3, 'resumed', '2026-01-01T10:30:00Z'),
      c(2, 'paused', '2026-01-01T10:00:00Z'),
    ];
    expect(pausesOf(changes, new Date('2026-01-01T12:00:00Z'))).toEqual([
      { pausedAt: new Date('2026-01-01T10:00:00Z'), resumedAt: new Date('2026-01-01T10:30:00Z') },
    ]);
    const open = [
      c(1, 'created', '2026-01-01T09:00:00Z'),
      c(2, 'paused', '2026-01-01T10:00:00Z'),
      c(3, 'closed', '2026-01-01T11:00:00Z', '2026-01-01T11:00:00Z'),
    ];
    expect(pausesOf(open, new Date('2026-01-01T11:00:00Z'))).toEqual([
      { pausedAt: new Date('2026-01-01T10:00:00Z'), resumedAt: new Date('2026-01-01T11:00:00Z') },
    ]);
  });

  it('a back-dated close drops the pauses after it and cuts the one across it (D-26)', () => {
    const changes = [
      c(1, 'created', '2026-01-01T09:00:00Z'),
      c(2, 'paused', '2026-01-01T10:00:00Z'),
      c(3, 'resumed', '2026-01-01T11:00:00Z'),
      c(4, 'paused', '2026-01-01T12:00:00Z'),
      c(5, 'backdated', '2026-01-01T13:00:00Z', '2026-01-01T10:30:00Z'),
    ];
    expect(pausesOf(changes, new Date('2026-01-01T10:30:00Z'))).toEqual([
      { pausedAt: new Date('2026-01-01T10:00:00Z'), resumedAt: new Date('2026-01-01T10:30:00Z') },
    ]);
  });

  it('a live paused session keeps its pause open', () => {
    expect(pausesOf([c(1, 'created', '2026-01-01T09:00:00Z'), c(2, 'paused', '2026-01-01T10:00:00Z')], null)).toEqual([
      { pausedAt: new Date('2026-01-01T10:00:00Z'), resumedAt: null },
    ]);
  });
});
