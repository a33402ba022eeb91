import { takeWithinBytes } from './byte-budget';
import { SignedCursor, type CursorScope } from './signed-cursor';

describe('SignedCursor', () => {
  const cursors = new SignedCursor('a-secret-of-enough-length');
  const filters = { from: '2026-01-01T00:00:00.000Z', sourceType: 'ci', to: undefined };
  const scope: CursorScope = { list: 'activity.events', owner: 'member-a', filters };

  it('round-trips a position for the same list, owner and filters, whatever their key order and the id case', () => {
    const c = cursors.encode(['2026-03-01T10:00:00.000Z', 'b3f1'], scope);
    expect(
      cursors.decode(c, { list: 'activity.events', owner: 'MEMBER-A', filters: { sourceType: 'ci', from: '2026-01-01T00:00:00.000Z' } }),
    ).toEqual(['2026-03-01T10:00:00.000Z', 'b3f1']);
  });

  it.each([
    ['other filters', (c: string) => cursors.decode(c, { ...scope, filters: { ...filters, sourceType: 'github' } })],
    ['another caller (D-29)', (c: string) => cursors.decode(c, { ...scope, owner: 'member-b' })],
    ['another list with the same filters (D-29)', (c: string) => cursors.decode(c, { ...scope, list: 'sessions' })],
    ['a flipped character', (c: string) => cursors.decode(`${c.slice(0, 5)}${c[5] === 'A' ? 'B' : 'A'}${c.slice(6)}`, scope)],
    ['another secret', (c: string) => new SignedCursor('another-secret-of-length').decode(c, scope)],
    ['garbage', () => cursors.decode('not-a-cursor', scope)],
    ['an extra segment', (c: string) => cursors.decode(`${c}.x`, scope)],
  ])('refuses %s with INVALID_CURSOR', (_name, attempt) => {
    const c = cursors.encode(['2026-03-01T10:00:00.000Z', 'id'], scope);
    expect(() => attempt(c)).toThrow(expect.objectContaining({ code: 'INVALID_CURSOR' }) as Error);
  });
});

describe('takeWithinBytes', () => {
  const size = (n: number): number => n;

  it('keeps the longest prefix within the budget', () => {
    expect(takeWithinBytes([40, 40, 40, 40], 100, size)).toEqual([40, 40]);
    expect(takeWithinBytes([40, 60, 1], 100, size)).toEqual([40, 60]);
    expect(takeWithinBytes([], 100, size)).toEqual([]);
  });

  it('always keeps the first row, so paging always progresses', () => {
    expect(takeWithinBytes([500, 1], 100, size)).toEqual([500]);
  });
});
