import { requestIdOf } from './bootstrap';

describe('requestIdOf (D-4)', () => {
  it('echoes a sane client id', () => {
    expect(requestIdOf({ headers: { 'x-request-id': 'abc-123_X.y:z' } })).toBe('abc-123_X.y:z');
  });

  it.each([undefined, '', 'has space', 'x'.repeat(129), 'line\nbreak', '<script>'])('replaces %p with a new uuid', (given) => {
    expect(requestIdOf({ headers: { 'x-request-id': given } })).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
