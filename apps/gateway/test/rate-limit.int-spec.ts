import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Controller, Get, Injectable, Module, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { ErrorCode } from '@worktrack/contracts';
import { boundPort, createHttpApp, createLogger, DomainError, Metrics, PlatformModule } from '@worktrack/platform';
import { testConfig } from '@worktrack/testing';
import { ApiTokenVerifier } from '../src/auth/api-token.verifier';
import { configureGateway } from '../src/gateway.app';
import { GatewayConfig } from '../src/gateway.config';
import { RateLimitGuard } from '../src/rate-limit/rate-limit.guard';
import { RateLimitModule } from '../src/rate-limit/rate-limit.module';
import type { RateLimitOptions } from '../src/rate-limit/rate-limiter';
import { gatewayErrors } from '../src/http/error-envelope';

/** How many times a handler ran, across every app of this file: a refused request must not move it. */
let handled = 0;

@Controller('limited')
class LimitedTestController {
  @Get('ping')
  ping(): { data: { ok: true } } {
    handled += 1;
    return { data: { ok: true } };
  }

  @Get('missing')
  missing(): never {
    handled += 1;
    throw new DomainError(ErrorCode.SESSION_NOT_FOUND, 'No such session.');
  }
}

/** Stands in for the auth guard: the principal comes from `x-test-member`; without it the request is anonymous. */
@Injectable()
class TestAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const member = request.headers['x-test-member'];
    if (typeof member === 'string') request.principal = { memberId: member, workspaceId: 'w-test', scope: 'full', credential: 'jwt' };
    return true;
  }
}

@Module({})
class RateLimitTestModule {}

interface TestApp {
  app: NestFastifyApplication;
  base: string;
  metrics: Metrics;
  logged: string[];
}

const config = testConfig(GatewayConfig);
/** One key prefix per run, as the gateway passes its run prefix. */
const keyPrefix = config.KAFKA_TOPIC_PREFIX;

async function startApp(options: Partial<RateLimitOptions>): Promise<TestApp> {
  const appConfig = testConfig(GatewayConfig);
  const logged: string[] = [];
  const logger = createLogger('gateway', 'info', appConfig.INSTANCE_ID, { write: (line: string) => logged.push(line) });
  const metrics = new Metrics('gateway');
  const app = await createHttpApp(
    {
      module: RateLimitTestModule,
      imports: [
        PlatformModule.forRoot({ app: 'gateway', config: appConfig, logger, metrics }),
        RateLimitModule.forRoot({ redisUrl: appConfig.REDIS_URL, keyPrefix, ...options }),
      ],
      controllers: [LimitedTestController],
      // As in the gateway: authentication first, then the rate limit.
      providers: [
        { provide: APP_GUARD, useClass: TestAuthGuard },
        { provide: APP_GUARD, useExisting: RateLimitGuard },
        // No API tokens here: the unauthenticated limit's verified-token shortcut never applies.
        { provide: ApiTokenVerifier, useValue: { isVerified: () => false } },
      ],
    },
    { config: appConfig, logger, metrics, errors: gatewayErrors(logger), configure: configureGateway },
  );
  return { app, base: `http://127.0.0.1:${boundPort(app)}`, metrics, logged };
}

const newMember = (): string => `m-${randomUUID()}`;

const ping = (app: TestApp, member?: string, path = '/v1/limited/ping'): Promise<Response> =>
  fetch(`${app.base}${path}`, { headers: member ? { 'x-test-member': member } : {} });

const limits = (res: Response) => ({
  status: res.status,
  limit: res.headers.get('ratelimit-limit'),
  remaining: res.headers.get('ratelimit-remaining'),
  reset: res.headers.get('ratelimit-reset'),
  retryAfter: res.headers.get('retry-after'),
});

async function counterValue(app: TestApp, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = app.metrics.registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  return values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((sum, v) => sum + v.value, 0);
}

/** Sleeps until `ms` after `start` (Date.now() time). */
const until = (start: number, ms: number): Promise<void> => sleep(Math.max(0, start + ms - Date.now()));

/**
 * A TCP proxy in front of the real Redis that can stall: while stalled it
 * holds what the client sends (Redis sees nothing, so nothing answers), and
 * delivers it in order on resume, as a slow Redis would.
 */
class StallingProxy {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly held: Array<{ upstream: Socket; chunk: Buffer }> = [];
  private stalled = false;

  constructor(target: URL) {
    this.server = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname);
      this.sockets.add(client).add(upstream);
      client.on('data', (chunk: Buffer) => {
        if (this.stalled) this.held.push({ upstream, chunk });
        else upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => client.write(chunk));
      const close = (): void => {
        client.destroy();
        upstream.destroy();
      };
      for (const socket of [client, upstream]) socket.on('error', close).on('close', close);
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    return `redis://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  }

  stall(): void {
    this.stalled = true;
  }

  resume(): void {
    this.stalled = false;
    for (const { upstream, chunk } of this.held.splice(0)) upstream.write(chunk);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('gateway rate limit (D-5): 5 requests per rolling 2 s in these tests', () => {
  const WINDOW_MS = 2_000;
  let replicaA: TestApp;
  let replicaB: TestApp;

  beforeAll(async () => {
    [replicaA, replicaB] = await Promise.all([startApp({ limit: 5, windowMs: WINDOW_MS }), startApp({ limit: 5, windowMs: WINDOW_MS })]);
  });

  afterAll(async () => {
    await Promise.all([replicaA?.app.close(), replicaB?.app.close()]);
  });

  it('sets RateLimit-Limit/-Remaining/-Reset on every authenticated response, errors included, and none on anonymous ones', async () => {
    const member = newMember();
    expect(limits(await ping(replicaA, member))).toEqual({ status: 200, limit: '5', remaining: '4', reset: '2', retryAfter: null });

    const failed = await ping(replicaA, member, '/v1/limited/missing');
    expect(limits(failed)).toMatchObject({ status: 404, limit: '5', remaining: '3', retryAfter: null });
    expect(Number(failed.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    expect(((await failed.json()) as { error: { code: string } }).error.code).toBe('SESSION_NOT_FOUND');

    const anonymous = await ping(replicaA);
    expect(anonymous.status).toBe(200);
    expect(limits(anonymous)).toEqual({ status: 200, limit: null, remaining: null, reset: null, retryAfter: null });
  });

  it('refuses the (limit + 1)th request in the window with 429 RATE_LIMITED and Retry-After, before the handler runs', async () => {
    const member = newMember();
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 5; i++) remaining.push(limits(await ping(replicaA, member)).remaining);
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);

    const handledBefore = handled;
    const limitedBefore = await counterValue(replicaA, 'worktrack_rate_limited_total');
    const refused = await ping(replicaA, member);
    const headers = limits(refused);
    expect(headers).toMatchObject({ status: 429, limit: '5', remaining: '0' });
    expect(['1', '2']).toContain(headers.retryAfter);
    expect(headers.reset).toBe(headers.retryAfter);
    expect(refused.headers.get('x-request-id')).toBeTruthy();
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body).toEqual({ error: { code: 'RATE_LIMITED', message: expect.stringContaining('retry in') as string } });
    expect(handled).toBe(handledBefore);
    expect(await counterValue(replicaA, 'worktrack_rate_limited_total')).toBe(limitedBefore + 1);

    // Another member is unaffected.
    expect(limits(await ping(replicaA, newMember()))).toMatchObject({ status: 200, remaining: '4' });
  });

  it('shares one count between replicas', async () => {
    const member = newMember();
    const seen: Array<[number, string | null]> = [];
    for (const replica of [replicaA, replicaB, replicaA, replicaB, replicaA]) {
      const { status, remaining } = limits(await ping(replica, member));
      seen.push([status, remaining]);
    }
    expect(seen).toEqual([
      [200, '4'],
      [200, '3'],
      [200, '2'],
      [200, '1'],
      [200, '0'],
    ]);
    expect((await ping(replicaB, member)).status).toBe(429);
    expect((await ping(replicaA, member)).status).toBe(429);
  });

  it('rolls: a slot frees when the oldest request leaves the window, not when a fixed window restarts', async () => {
    const member = newMember();
    // Start just after a multiple of the window on the clock, so that a fixed
    // window of either kind — anchored at the first request, or aligned to
    // the clock — has restarted by t0 + 2.2 s and would allow 5 requests there.
    await sleep(WINDOW_MS - (Date.now() % WINDOW_MS));
    expect(limits(await ping(replicaA, member))).toMatchObject({ status: 200, remaining: '4', reset: '2' });
    const t0 = Date.now(); // request 1 was counted at or before t0

    await until(t0, 1_000); // requests 2–5, counted in [t0 + 1 s, t0 + 1 s + a few ms]
    const batch = [];
    for (let i = 0; i < 4; i++) batch.push(limits(await ping(replicaB, member)));
    expect(batch.map((h) => h.remaining)).toEqual(['3', '2', '1', '0']);
    expect(batch[3].reset).toBe('1'); // request 1 leaves at t0 + 2 s
    expect(limits(await ping(replicaA, member))).toMatchObject({ status: 429, retryAfter: '1' });

    await until(t0, 2_200); // request 1 has left; requests 2–5 have not
    expect(limits(await ping(replicaA, member))).toMatchObject({ status: 200, remaining: '0' });
    // A fixed window would have started afresh here and allowed 4 more; the rolling one refuses.
    expect(limits(await ping(replicaB, member))).toMatchObject({ status: 429, retryAfter: '1' });

    await until(t0, 3_300); // requests 2–5 have left; the one at t0 + 2.2 s has not
    const after = [];
    for (let i = 0; i < 5; i++) after.push(limits(await ping(replicaA, member)));
    expect(after.map((h) => [h.status, h.remaining])).toEqual([
      [200, '3'],
      [200, '2'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
  });
});

describe('gateway rate limit when Redis is down or slow: fail open, bounded', () => {
  const TIMEOUT_MS = 150;
  let down: TestApp;
  let slow: TestApp;
  let proxy: StallingProxy;

  beforeAll(async () => {
    proxy = new StallingProxy(new URL(config.REDIS_URL));
    const proxyUrl = await proxy.listen();
    [down, slow] = await Promise.all([
      startApp({ redisUrl: 'redis://127.0.0.1:1', limit: 2, timeoutMs: TIMEOUT_MS, logIntervalMs: 60_000 }),
      startApp({ redisUrl: proxyUrl, limit: 5, windowMs: 2_000, timeoutMs: TIMEOUT_MS, logIntervalMs: 60_000 }),
    ]);
  });

  afterAll(async () => {
    proxy?.resume();
    await Promise.all([down?.app.close(), slow?.app.close()]);
    await proxy?.close();
  });

  it('serves every request when Redis is unreachable, counts each in the fail-open metric and logs once', async () => {
    const member = newMember();
    const before = await counterValue(down, 'worktrack_rate_limit_fail_open_total', { reason: 'unavailable' });
    for (let i = 0; i < 10; i++) {
      const started = Date.now();
      const res = await ping(down, member);
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1_000); // bounded; generous for a loaded 2-core machine
      // Not counted: the limit of 2 is not applied, and the headers say so.
      expect(limits(res)).toEqual({ status: 200, limit: '2', remaining: '2', reset: '0', retryAfter: null });
    }
    expect(await counterValue(down, 'worktrack_rate_limit_fail_open_total', { reason: 'unavailable' })).toBe(before + 10);
    const exposed = await (await fetch(`${down.base}/metrics`)).text();
    expect(exposed).toMatch(/worktrack_rate_limit_fail_open_total\{[^}]*reason="unavailable"[^}]*\} \d+/);
    expect(down.logged.filter((l) => l.includes('rate limiter failing open')).length).toBe(1);
    expect(down.logged.filter((l) => l.includes('Redis connection error')).length).toBeLessThanOrEqual(1);
  });

  it('answers within the bound when Redis stops answering, and counts again once it answers', async () => {
    const member = newMember();
    expect(limits(await ping(slow, member))).toMatchObject({ status: 200, remaining: '4' });
    const before = await counterValue(slow, 'worktrack_rate_limit_fail_open_total', { reason: 'timeout' });

    proxy.stall();
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const res = await ping(slow, member);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 1_000); // bounded; generous for a loaded 2-core machine
      expect(limits(res)).toMatchObject({ status: 200, remaining: '5', reset: '0' });
    }
    expect(await counterValue(slow, 'worktrack_rate_limit_fail_open_total', { reason: 'timeout' })).toBe(before + 3);
    expect(slow.logged.filter((l) => l.includes('rate limiter failing open')).length).toBe(1);

    proxy.resume();
    // The three held scripts reach Redis first, in order, and count (a slow
    // Redis may still count what it answered too late); this one follows them.
    expect(limits(await ping(slow, member))).toMatchObject({ status: 200, remaining: '0' });
    expect(slow.logged.some((l) => l.includes('counting resumed'))).toBe(true);
    expect((await ping(slow, member)).status).toBe(429);
  });
});
