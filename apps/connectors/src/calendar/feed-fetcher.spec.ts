import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { RequestFilteringAgentOptions } from 'request-filtering-agent';
import { ConnectorsConfig } from '../connectors.config';
import { FeedFetcher, FeedFetchError } from './feed-fetcher';

/**
 * Feed fetching against real local HTTP servers (SSRF): loopback,
 * private, link-local, metadata and mapped addresses are refused by default
 * — by the address the socket connects to, whether named by a literal or by
 * a host name — redirects are checked again, and no error text carries what
 * the server answered.
 */
const config = (allowPrivate: boolean): ConnectorsConfig =>
  Object.assign(new ConnectorsConfig(), {
    FEED_ALLOW_PRIVATE_HOSTS: allowPrivate,
    FEED_FETCH_TIMEOUT_MS: 5_000,
    FEED_MAX_BYTES: 64 * 1024,
  });

/** Allows exactly 127.0.0.1, as if it were a public address: the one way to test a redirect from an allowed host. */
class OneLoopbackAllowed extends FeedFetcher {
  protected override filterOptions(): RequestFilteringAgentOptions {
    return { allowPrivateIPAddress: false, allowMetaIPAddress: false, allowIPAddressList: ['127.0.0.1'] };
  }
}

const SECRET = 'internal-admin-token-7f3a';

async function fetchError(fetcher: FeedFetcher, url: string): Promise<FeedFetchError> {
  try {
    await fetcher.fetch(new URL(url));
  } catch (err) {
    if (err instanceof FeedFetchError) return err;
    throw err;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('FeedFetcher', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];
  let handler: (req: IncomingMessage, res: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    hits.length = 0;
    handler = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`root:${SECRET}`);
  });

  const PRIVATE_MESSAGE = "the feed's host is a private, loopback, link-local or metadata address, which calendar feeds may not use";

  it.each([
    ['loopback literal', (p: number) => `http://127.0.0.1:${p}/feed.ics`],
    ['another loopback address', (p: number) => `http://127.0.0.2:${p}/feed.ics`],
    ['a name resolving to loopback (checked on the address connected to)', (p: number) => `http://localhost:${p}/feed.ics`],
    ['the unspecified address', (p: number) => `http://0.0.0.0:${p}/feed.ics`],
    ['an IPv4-mapped IPv6 loopback', (p: number) => `http://[::ffff:127.0.0.1]:${p}/feed.ics`],
    ['IPv6 loopback', (p: number) => `http://[::1]:${p}/feed.ics`],
  ])('refuses %s by default, without sending a request', async (_name, url) => {
    const error = await fetchError(new FeedFetcher(config(false)), url(port));
    expect(error.message).toBe(PRIVATE_MESSAGE);
    expect(hits).toEqual([]);
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/x.ics',
    'http://192.168.1.1/x.ics',
    'http://100.100.100.200/x.ics',
  ])('refuses the metadata, private and carrier-grade NAT address %s before connecting', async (url) => {
    expect((await fetchError(new FeedFetcher(config(false)), url)).message).toBe(PRIVATE_MESSAGE);
  });

  it('checks every redirect again: an allowed host redirecting to a loopback one is refused', async () => {
    handler = (req, res) => {
      if (req.url === '/start.ics') res.writeHead(302, { location: `http://127.0.0.2:${port}/internal` }).end();
      else res.writeHead(200).end(`root:${SECRET}`);
    };
    const error = await fetchError(new OneLoopbackAllowed(config(false)), `http://127.0.0.1:${port}/start.ics`);
    expect(error.message).toBe(PRIVATE_MESSAGE);
    expect(hits).toEqual(['/start.ics']);
  });

  it('never echoes a response body in an error', async () => {
    handler = (_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`root:${SECRET}`);
    const error = await fetchError(new FeedFetcher(config(true)), `http://127.0.0.1:${port}/x.ics`);
    expect(error.message).toBe('the feed answered HTTP 500');
    expect(error.message).not.toContain(SECRET);
  });

  it('fetches from loopback only with the explicit opt-in, and decodes gzip', async () => {
    handler = (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n'));
    await expect(new FeedFetcher(config(true)).fetch(new URL(`http://127.0.0.1:${port}/ok.ics`))).resolves.toBe(
      'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n',
    );
  });

  it('caps the decoded size', async () => {
    handler = (_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('x'.repeat(1_000_000)));
    expect((await fetchError(new FeedFetcher(config(true)), `http://127.0.0.1:${port}/big.ics`)).message).toBe(
      'the feed is larger than 65536 bytes',
    );
  });

  it('gives up after 3 redirects', async () => {
    handler = (_req, res) => res.writeHead(301, { location: '/again' }).end();
    expect((await fetchError(new FeedFetcher(config(true)), `http://127.0.0.1:${port}/loop`)).message).toBe(
      'the feed redirected more than 3 times',
    );
  });
});
