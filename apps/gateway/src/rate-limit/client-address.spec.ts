import { clientAddress } from './client-address';

describe('clientAddress (the key of the failed-authentication limit)', () => {
  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For claims', () => {
    expect(clientAddress('203.0.113.7', '198.51.100.1', 0)).toBe('203.0.113.7');
    expect(clientAddress('::ffff:203.0.113.7', undefined, 0)).toBe('203.0.113.7');
  });

  it('takes the address the trusted proxies saw, never an entry the client wrote further left', () => {
    // client forged "1.1.1.1", the real client is 198.51.100.9, one proxy (10.0.0.5) in front.
    expect(clientAddress('10.0.0.5', '1.1.1.1, 198.51.100.9', 1)).toBe('198.51.100.9');
    expect(clientAddress('10.0.0.5', ['1.1.1.1', '198.51.100.9, 10.0.0.4'], 2)).toBe('198.51.100.9');
    // fewer hops than configured: the leftmost there is
    expect(clientAddress('10.0.0.5', undefined, 1)).toBe('10.0.0.5');
    // garbage in the chosen slot: fall back to the socket peer
    expect(clientAddress('10.0.0.5', 'not-an-ip', 1)).toBe('10.0.0.5');
  });

  it('keys IPv6 clients by their /64', () => {
    expect(clientAddress('2001:db8:1:2:aaaa::1', undefined, 0)).toBe('2001:db8:1:2::/64');
    expect(clientAddress('2001:db8:1:2:bbbb::9', undefined, 0)).toBe('2001:db8:1:2::/64');
  });
});
