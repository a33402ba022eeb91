import { acceptsGzip } from './accept-encoding';

describe('acceptsGzip (the summary is passed through compressed only to clients that take gzip)', () => {
  it.each([
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['br;q=1.0, GZIP;q=0.5', true],
    ['*', true],
    ['deflate, br', false],
    ['gzip;q=0', false],
    ['gzip; q=0.0, *;q=0', false],
    ['identity', false],
    ['gzip;q=0, *;q=1', false],
    ['br, *;q=0.1', true],
    ['x-gzip', true],
    [undefined, false],
  ])('%s → %s', (header, expected) => expect(acceptsGzip(header)).toBe(expected));
});
