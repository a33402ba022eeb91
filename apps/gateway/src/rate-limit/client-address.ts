import ipaddr from 'ipaddr.js';

/**
 * The client address failed authentications are counted against (D-37).
 *
 * `trustedProxyHops` is how many reverse proxies in front of the gateway
 * append to X-Forwarded-For (0: the socket peer is the client). The client is
 * then the address that many hops left of the socket peer; entries further
 * left are the client's own claims and are ignored, so a client cannot pick
 * its own key. IPv4-mapped IPv6 is unmapped, and IPv6 clients are keyed by
 * their /64 — one subscriber's prefix — so rotating through a prefix does
 * not buy fresh allowances.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedProxyHops: number,
): string {
  const chain = [
    ...(trustedProxyHops > 0 ? [forwardedFor ?? []].flat().flatMap((h) => h.split(',')) : []).map((s) => s.trim()).filter(Boolean),
    socketAddress ?? '',
  ];
  const picked = chain[Math.max(0, chain.length - 1 - trustedProxyHops)];
  return normalise(picked) ?? normalise(socketAddress ?? '') ?? 'unknown';
}

function normalise(value: string): string | undefined {
  if (!ipaddr.isValid(value)) return undefined;
  const parsed = ipaddr.process(value);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}
