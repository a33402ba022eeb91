import { SignedCursor } from './signed-cursor';

describe('SignedCursor', () => {
  const cursors = new SignedCursor('a-secret-of-enough-length');
  const filters = { from: '2026-01-01T00:00:00.000Z', sourceType: 'ci', to: undefined };

  it('round-trips a position for the same filters, whatever their key order', () => {
    const c = cursors.encode(['2026-03-01T10:00:00.000Z', 'b3f1'], filters);
    expect(cursors.decode(c, { sourceType: 'ci', from: '2026-01-01T00:00:00.000Z' })).toEqual(['2026-03-01T10:00:00.000Z', 'b3f1']);
  });

  it.each([
    ['other filters', (c: string) => cursors.decode(c, { ...filters, sourceType: 'github' })],
    ['a flipped character', (c: string) => cursors.decode(`${c.slice(0, 5)}${c[5] === 'A' ? 'B' : 'A'}${c.slice(6)}`, filters)],
    ['another secret', (c: string) => new SignedCursor('another-secret-of-length').decode(c, filters)],
    ['garbage', () => cursors.decode('not-a-cursor', filters)],
    ['an extra segment', (c: string) => cursors.decode(`${c}.x`, filters)],
  ])('refuses %s with INVALID_CURSOR', (_name, attempt) => {
    const c = cursors.encode(['2026-03-01T10:00:00.000Z', 'id'], filters);
    expect(() => attempt(c)).toThrow(expect.objectContaining({ code: 'INVALID_CURSOR' }) as Error);
  });
});
