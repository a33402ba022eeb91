import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent, type RequestFilteringAgentOptions } from 'request-filtering-agent';
import { ConnectorsConfig } from '../connectors.config';

/**
 * A feed could not be read. The message is shown on the connector
 * (`last_error`) and in the delivery log, so it never holds the URL (it may
 * carry a token), an address the host resolved to, or a byte of what the
 * server answered (echoing a response makes the connector an oracle
 * on internal services).
 */
export class FeedFetchError extends Error {}

const MAX_REDIRECTS = 3;

/**
 * Fetches an ICS feed (D-36): a timeout for the whole exchange, a
 * size cap on the decoded body, at most 3 redirects. Unless
 * FEED_ALLOW_PRIVATE_HOSTS is on (local development and tests), the address
 * actually connected to must be a public unicast one — loopback, private,
 * link-local (cloud metadata at 169.254.169.254), carrier-grade NAT,
 * unique-local, IPv4-mapped, unspecified and reserved ranges are refused. The
 * check is request-filtering-agent's: it runs inside the socket's own DNS
 * lookup, on the address the socket then connects to, so a name that resolves
 * to a public address when checked and a private one when connected (DNS
 * rebinding) is still refused. Every redirect is a new request through the
 * same agent, so it is checked the same way.
 */
@Injectable()
export class FeedFetcher {
  private readonly agents: { http: RequestFilteringHttpAgent; https: RequestFilteringHttpsAgent };

  constructor(private readonly config: ConnectorsConfig) {
    const filter = this.filterOptions();
    // No keep-alive: a feed is fetched every few minutes at most, and a pooled socket would skip the address check.
    this.agents = {
      http: new RequestFilteringHttpAgent({ ...filter, keepAlive: false }),
      https: new RequestFilteringHttpsAgent({ ...filter, keepAlive: false }),
    };
  }

  /** What the agents refuse: every non-unicast address unless FEED_ALLOW_PRIVATE_HOSTS. */
  protected filterOptions(): RequestFilteringAgentOptions {
    return { allowPrivateIPAddress: this.config.FEED_ALLOW_PRIVATE_HOSTS, allowMetaIPAddress: this.config.FEED_ALLOW_PRIVATE_HOSTS };
  }

  async fetch(url: URL): Promise<string> {
    const deadline = Date.now() + this.config.FEED_FETCH_TIMEOUT_MS;
    let target = url;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const response = await this.get(target, deadline);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (status >= 300 && status < 400 && location) {
        response.destroy();
        try {
          target = new URL(location, target);
        } catch {
          throw new FeedFetchError('the feed redirected to an invalid address');
        }
        if (target.protocol !== 'https:' && target.protocol !== 'http:')
          throw new FeedFetchError('the feed redirected to a non-HTTP address');
        continue;
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        throw new FeedFetchError(`the feed answered HTTP ${status}`);
      }
      return this.readCapped(response, deadline);
    }
    throw new FeedFetchError(`the feed redirected more than ${MAX_REDIRECTS} times`);
  }

  private get(url: URL, deadline: number): Promise<IncomingMessage> {
    const left = deadline - Date.now();
    if (left <= 0) return Promise.reject(this.timedOut());
    const secure = url.protocol === 'https:';
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = (secure ? httpsRequest : httpRequest)(
        url,
        {
          method: 'GET',
          agent: secure ? this.agents.https : this.agents.http,
          timeout: left,
          headers: {
            accept: 'text/calendar, text/plain;q=0.5, */*;q=0.1',
            'accept-encoding': 'gzip, deflate, br',
            'user-agent': 'worktrack-calendar-connector',
          },
        },
        resolve,
      );
      const timer = setTimeout(() => req.destroy(this.timedOut()), left);
      req.once('close', () => clearTimeout(timer));
      req.once('timeout', () => req.destroy(this.timedOut()));
      req.once('error', (err) => reject(err instanceof FeedFetchError ? err : new FeedFetchError(describe(err))));
      req.end();
    });
  }

  private async readCapped(response: IncomingMessage, deadline: number): Promise<string> {
    const max = this.config.FEED_MAX_BYTES;
    const declared = Number(response.headers['content-length']);
    const encoding = String(response.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (encoding === 'identity' && Number.isFinite(declared) && declared > max) {
      response.destroy();
      throw new FeedFetchError(`the feed is ${declared} bytes; at most ${max}`);
    }
    let body: Readable = response;
    if (encoding === 'gzip' || encoding === 'x-gzip') body = response.pipe(createGunzip());
    else if (encoding === 'deflate') body = response.pipe(createInflate());
    else if (encoding === 'br') body = response.pipe(createBrotliDecompress());
    else if (encoding !== 'identity') {
      response.destroy();
      throw new FeedFetchError('the feed uses an unsupported content encoding');
    }
    const timer = setTimeout(() => response.destroy(this.timedOut()), Math.max(0, deadline - Date.now()));
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of body) {
        size += (chunk as Buffer).length;
        if (size > max) {
          response.destroy();
          throw new FeedFetchError(`the feed is larger than ${max} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
    } catch (err) {
      if (err instanceof FeedFetchError) throw err;
      throw new FeedFetchError(
        response.destroyed && Date.now() >= deadline ? this.timedOut().message : 'the feed could not be read completely',
      );
    } finally {
      clearTimeout(timer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  private timedOut(): FeedFetchError {
    return new FeedFetchError(`the feed did not answer within ${this.config.FEED_FETCH_TIMEOUT_MS} ms`);
  }
}

/** Why a connection failed, in words that name no address (the filter's own message quotes the resolved IP). */
function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : '';
  if (/is not allowed\. Because/.test(message)) {
    return "the feed's host is a private, loopback, link-local or metadata address, which calendar feeds may not use";
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return "the feed's host could not be resolved";
  if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return `the feed could not be reached (${code})`;
  return 'the feed could not be reached';
}
