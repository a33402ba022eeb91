import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { Injectable } from '@nestjs/common';
import { ConnectorsConfig } from '../connectors.config';

/** A feed could not be read; the message is shown on the connector (never the URL, which may hold a token). */
export class FeedFetchError extends Error {}

const MAX_REDIRECTS = 3;

/** Addresses a feed must not resolve to in production (server-side request forgery). */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::1', 128],
  ['::', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1], 'ipv4');
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Fetches an ICS feed: a timeout, a size cap, at most 3 redirects, and in
 * production no loopback/private/link-local targets (checked again at every
 * redirect).
 */
@Injectable()
export class FeedFetcher {
  constructor(private readonly config: ConnectorsConfig) {}

  async fetch(url: URL): Promise<string> {
    const signal = AbortSignal.timeout(this.config.FEED_FETCH_TIMEOUT_MS);
    let target = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      await this.checkHost(target);
      let response: Response;
      try {
        response = await fetch(target, {
          redirect: 'manual',
          signal,
          headers: { accept: 'text/calendar, text/plain;q=0.5, */*;q=0.1', 'user-agent': 'worktrack-calendar-connector' },
        });
      } catch (err) {
        const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
        throw new FeedFetchError(
          timedOut
            ? `the feed did not answer within ${this.config.FEED_FETCH_TIMEOUT_MS} ms`
            : `the feed could not be reached (${describe(err)})`,
        );
      }
      if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
        await response.body?.cancel();
        target = new URL(response.headers.get('location') ?? '', target);
        if (target.protocol !== 'https:' && target.protocol !== 'http:')
          throw new FeedFetchError('the feed redirected to a non-HTTP address');
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new FeedFetchError(`the feed answered HTTP ${response.status}`);
      }
      return this.readCapped(response);
    }
    throw new FeedFetchError(`the feed redirected more than ${MAX_REDIRECTS} times`);
  }

  private async checkHost(url: URL): Promise<void> {
    if (this.config.allowPrivateFeedHosts) return;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      throw new FeedFetchError(`the feed's host ${host} could not be resolved`);
    }
    if (addresses.some(isPrivateAddress)) throw new FeedFetchError(`the feed's host ${host} is a private address`);
  }

  private async readCapped(response: Response): Promise<string> {
    const max = this.config.FEED_MAX_BYTES;
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > max) {
      await response.body?.cancel();
      throw new FeedFetchError(`the feed is ${declared} bytes; at most ${max}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    if (!response.body) return '';
    for await (const chunk of response.body) {
      size += (chunk as Uint8Array).length;
      if (size > max) throw new FeedFetchError(`the feed is larger than ${max} bytes`);
      chunks.push(Buffer.from(chunk as Uint8Array));
    }
    return Buffer.concat(chunks).toString('utf8');
  }
}

const describe = (err: unknown): string => {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  return cause instanceof Error ? ((cause as { code?: string }).code ?? cause.message) : 'unknown error';
};
