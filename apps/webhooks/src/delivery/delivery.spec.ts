import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { testConfig } from '@worktrack/testing';
import { WebhooksConfig } from '../webhooks.config';
import { nextAttemptAt, parseRetryAfter } from './retry-schedule';
import { WebhookSender } from './sender';
import { newEndpointSecret, signatureHeader } from './signer';

describe('signatures (D-55)', () => {
  it('verify with the standardwebhooks library, one per secret during a rotation', () => {
    const [a, b] = [newEndpointSecret(), newEndpointSecret()];
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ type: 'session.started', timestamp: new Date().toISOString(), data: {} });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = signatureHeader([a, b], 'msg_0123456789abcdef0123456789abcdef', timestamp, body);
    const headers = {
      'webhook-id': 'msg_0123456789abcdef0123456789abcdef',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    };
    expect(new Webhook(a).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(b).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newEndpointSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(a).verify(`${body} `, headers)).toThrow();
  });
});

describe('the retry schedule (D-55)', () => {
  const schedule = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 86_400_000];
  it('waits the n-th delay, ±20 %, and stops when the schedule is exhausted', () => {
    expect(nextAttemptAt(schedule, 0.2, 1, 0, null, () => 0.5)).toEqual(new Date(5_000));
    expect(nextAttemptAt(schedule, 0.2, 1, 0, null, () => 0)).toEqual(new Date(4_000));
    expect(nextAttemptAt(schedule, 0.2, 1, 0, null, () => 1)).toEqual(new Date(6_000));
    expect(nextAttemptAt(schedule, 0.2, 7, 0, null, () => 0.5)).toEqual(new Date(86_400_000));
    expect(nextAttemptAt(schedule, 0.2, 8, 0, null)).toBeNull();
    // At least 24 hours of retries in all.
    expect(schedule.reduce((a, b) => a + b, 0) * 0.8).toBeGreaterThan(86_400_000);
  });

  it('a Retry-After holds the next attempt back, at most 24 hours', () => {
    expect(nextAttemptAt(schedule, 0, 1, 0, 60_000)).toEqual(new Date(60_000));
    expect(nextAttemptAt(schedule, 0, 1, 0, 10 * 86_400_000)).toEqual(new Date(86_400_000));
    expect(parseRetryAfter('120', 0)).toBe(120_000);
    expect(parseRetryAfter(new Date(30_000).toUTCString(), 0)).toBe(30_000);
    expect(parseRetryAfter('soon', 0)).toBeNull();
    expect(parseRetryAfter(undefined, 0)).toBeNull();
  });
});

describe('the sender refuses private addresses when it connects (D-53)', () => {
  it('a host that resolves to loopback is refused at connect time, with a reason that names no address', async () => {
    const server = createServer((_req, res) => res.writeHead(200).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sender = new WebhookSender(testConfig(WebhooksConfig, { FEED_ALLOW_PRIVATE_HOSTS: 'false' }));
    try {
      const port = (server.address() as AddressInfo).port;
      const outcome = await sender.send(`https://localhost:${port}/hook`, {}, '{}');
      expect(outcome).toEqual({ status: null, error: "the endpoint's host is a private, loopback, link-local or metadata address" });
      expect(await sender.send(`http://localhost:${port}/hook`, {}, '{}')).toEqual({
        status: null,
        error: 'the endpoint URL must use https',
      });
    } finally {
      sender.onModuleDestroy();
      server.close();
    }
  });
});
