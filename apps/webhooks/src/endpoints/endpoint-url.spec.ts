import { endpointUrlProblem } from './endpoint-url';

describe('endpoint URLs at registration (D-53)', () => {
  it.each([
    ['https://hooks.example.com/worktrack', null],
    ['https://93.184.216.34/hook', null],
    ['http://hooks.example.com/worktrack', 'must use https'],
    ['ftp://hooks.example.com/', 'must use https'],
    ['https://user:pw@hooks.example.com/', 'must not contain user info'],
    ['hooks.example.com/x', 'must be an absolute URL'],
    ['https://127.0.0.1/hook', 'must not be a loopback address'],
    ['https://10.1.2.3/hook', 'must not be a private address'],
    ['https://192.168.1.1/hook', 'must not be a private address'],
    ['https://169.254.169.254/latest/meta-data', 'must not be a linkLocal address'],
    ['https://[::1]/hook', 'must not be a loopback address'],
    ['https://[fd00::1]/hook', 'must not be a uniqueLocal address'],
    ['https://[::ffff:127.0.0.1]/hook', 'must not be a loopback address'],
    ['https://localhost/hook', 'must be a public host name'],
    ['https://metadata.google.internal/computeMetadata', 'must be a public host name'],
    ['https://intranet/hook', 'must be a public host name'],
    [`https://hooks.example.com/${'a'.repeat(3000)}`, 'must be at most 2048 characters'],
  ])('%s: %p', (url, problem) => {
    expect(endpointUrlProblem(url, false)).toBe(problem);
  });

  it('FEED_ALLOW_PRIVATE_HOSTS allows private hosts and plain http (development and tests only)', () => {
    expect(endpointUrlProblem('http://127.0.0.1:8080/hook', true)).toBeNull();
    expect(endpointUrlProblem('https://localhost/hook', true)).toBeNull();
    expect(endpointUrlProblem('https://user:pw@localhost/hook', true)).toBe('must not contain user info');
  });
});
