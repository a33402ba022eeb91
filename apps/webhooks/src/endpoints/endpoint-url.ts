import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { MAX_WEBHOOK_URL_LENGTH } from '@worktrack/contracts';

/**
 * D-53 at registration: why `raw` is not an acceptable endpoint URL, or
 * null. https only (http too when private hosts are allowed), no user info,
 * at most 2,048 characters, and a host that is not a loopback, private,
 * link-local or metadata address (a literal address, or a name that is
 * plainly local). A public name that resolves to a private address is
 * refused when an attempt connects (the agent checks the address the socket
 * uses: DNS rebinding cannot get past it).
 */
export function endpointUrlProblem(raw: string, allowPrivate: boolean): string | null {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'must use https';
  if (url.username || url.password) return 'must not contain user info';
  if (url.hash) return 'must not contain a fragment';
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(host)) {
    const address = ipaddr.process(host);
    if (address.range() !== 'unicast') return `must not be a ${address.range()} address`;
    return null;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal') || !host.includes('.')) {
    return 'must be a public host name';
  }
  if (host === 'metadata.google.internal') return 'must not be a metadata address';
  return null;
}
