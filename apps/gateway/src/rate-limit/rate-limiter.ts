import { randomBytes } from 'node:crypto';
import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { IsInt, Matches, Max, Min, validateSync } from 'class-validator';
import Redis, { type Result } from 'ioredis';
import { Counter } from 'prom-client';
import { ConfigError, LOGGER, Metrics, type AppLogger } from '@worktrack/platform';

/**
 * D-5 rate limit settings. The gateway maps its environment onto these
 * (`RATE_LIMIT_PER_MINUTE` → `limit`, `REDIS_URL`, `KAFKA_TOPIC_PREFIX` →
 * `keyPrefix`); tests use small values. Validated at boot by
 * `rateLimitOptions()`; defaults are the product's.
 */
export class RateLimitOptions {
  @Matches(/^rediss?:\/\/.+/, { message: 'must be a redis:// URL' })
  redisUrl = 'redis://127.0.0.1:6379';

  /** Requests a member may make in any rolling window. */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  limit = 600;

  /** Length of the rolling window. */
  @IsInt()
  @Min(100)
  @Max(86_400_000)
  windowMs = 60_000;

  /**
   * Failed authentications (401s, unknown hooks) one client address may
   * cause in any rolling window before its further failures are answered
   * 429 instead of 401 (D-37: its valid credentials are still served).
   */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  unauthenticatedLimit = 60;

  /** Reverse proxies in front of the gateway that append to X-Forwarded-For (0: the socket peer is the client). */
  @IsInt()
  @Min(0)
  @Max(10)
  trustedProxyHops = 0;

  /** Prepended to every Redis key (a deployment or test-run prefix). */
  @Matches(/^[a-zA-Z0-9._:-]*$/, { message: 'may only hold letters, digits, dot, colon, underscore and hyphen' })
  keyPrefix = '';

  /** Longest wait for Redis per request; past it the request passes uncounted (fail open). */
  @IsInt()
  @Min(10)
  @Max(5_000)
  timeoutMs = 150;

  /** At most one "failing open" log line per this interval. */
  @IsInt()
  @Min(100)
  logIntervalMs = 30_000;
}

/** Builds and validates the options (defaults fill what is not given); throws a ConfigError naming each bad field. */
export function rateLimitOptions(values: Partial<RateLimitOptions> = {}): RateLimitOptions {
  const defined = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined));
  const options = Object.assign(new RateLimitOptions(), defined);
  const problems = validateSync(options).flatMap((e) =>
    Object.values(e.constraints ?? {}).map(
      (issue) => `rate limit ${e.property}: ${issue} (got ${JSON.stringify(defined[e.property] ?? null)})`,
    ),
  );
  if (problems.length > 0) throw new ConfigError(problems);
  return options;
}

/** What the limiter decided for one request. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests the member may still make now, this one included in the count. */
  remaining: number;
  /**
   * Seconds (rounded up) until the oldest request counted in the member's
   * window leaves it, i.e. until `remaining` next grows; on a refusal, when
   * a retry can succeed. 0 when the request was not counted.
   */
  resetSeconds: number;
  /** False when Redis did not answer in time: the request passed uncounted (fail open). */
  counted: boolean;
}

/** D-5 response headers for a decision; `Retry-After` only on a refusal. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
  };
  if (!decision.allowed) headers['Retry-After'] = String(Math.max(1, decision.resetSeconds));
  return headers;
}

/** Says yes at most once per interval: for log lines about a recurring failure. */
export class LogGate {
  private last = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  allow(): boolean {
    const now = this.now();
    if (now - this.last < this.intervalMs) return false;
    this.last = now;
    return true;
  }

  reset(): void {
    this.last = Number.NEGATIVE_INFINITY;
  }
}

/**
 * Sliding log, atomic in Redis (ADR 0004). One sorted set per member holds
 * one entry per ACCEPTED request, scored by the Redis server's clock in
 * whole milliseconds, so every gateway replica judges by the same clock.
 * Refused requests are not recorded: hammering does not extend a lockout.
 *
 *   KEYS[1]  the member's log
 *   ARGV[1]  limit          ARGV[2]  window (ms)
 *   ARGV[3]  a unique id for this request (the set's member)
 *
 * Returns { allowed (1|0), requests in the window after this one,
 *           ms until the oldest of them leaves the window (0 if none) }.
 */
export const SLIDING_LOG_LUA = `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- The window is (now - window, now]: an entry exactly one window old has left.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  -- The set outlives its newest entry by one window, then disappears.
  redis.call('PEXPIRE', KEYS[1], window)
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = 0
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return { allowed, count, reset }
`;

/**
 * The failed-authentication limit's check (D-37): how many failures the
 * address has in the window, without adding one.
 *
 *   KEYS[1]  the address' failure log     ARGV[1]  window (ms)
 *
 * Returns { failures in the window, ms until the oldest leaves it (0 if none) }.
 */
const FAILURES_PEEK_LUA = `
local window = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = 0
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return { count, reset }
`;

/**
 * Records one failure for an address; the log never holds more than
 * ARGV[3] entries (the limit), so a flood cannot grow it.
 *
 *   KEYS[1]  the address' failure log
 *   ARGV[1]  window (ms)   ARGV[2]  a unique id   ARGV[3]  cap
 */
const FAILURES_RECORD_LUA = `
local window = tonumber(ARGV[1])
local cap = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[2])
local size = redis.call('ZCARD', KEYS[1])
if size > cap then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, size - cap - 1) end
redis.call('PEXPIRE', KEYS[1], window)
return size
`;

/** After Redis failed to answer, the unauthenticated limit passes without asking for this long. */
const ADDRESS_SKIP_AFTER_FAILURE_MS = 1_000;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    worktrackRateLimit(key: string, limit: number, windowMs: number, requestId: string): Result<[number, number, number], Context>;
    worktrackFailuresPeek(key: string, windowMs: number): Result<[number, number], Context>;
    worktrackFailuresRecord(key: string, windowMs: number, id: string, cap: number): Result<number, Context>;
  }
}

type FailOpenReason = 'timeout' | 'unavailable' | 'error';

class RedisTimeoutError extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'RedisTimeoutError';
  }
}

const reasonOf = (err: unknown): FailOpenReason => {
  const message = err instanceof Error ? err.message : '';
  if (err instanceof RedisTimeoutError || message === 'Command timed out') return 'timeout';
  if (/writeable|Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT/i.test(message)) return 'unavailable';
  return 'error';
};

function counter(metrics: Metrics, name: string, help: string, labelNames: string[] = []): Counter {
  // Tolerates a second limiter on the same registry (several "replicas" in one test process).
  const existing = metrics.registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing;
  return new Counter({ name, help, labelNames, registers: [metrics.registry] });
}

/**
 * D-5: per-member request counting in Redis, shared by every gateway
 * replica. Never throws and never waits longer than `timeoutMs`: when Redis
 * is down or slow the request passes uncounted (fail open), counted in
 * `worktrack_rate_limit_fail_open_total` and logged at most once per
 * `logIntervalMs`. Not a readiness check on purpose: Redis being down must
 * not take the gateway out of service.
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnApplicationShutdown {
  private readonly redis: Redis;
  private readonly failOpenTotal: Counter;
  private readonly limitedTotal: Counter;
  private readonly addressLimitedTotal: Counter;
  private readonly addressUncheckedTotal: Counter;
  /** When Redis last failed to answer (any call): the address limit then passes without asking for a moment. */
  private lastFailureAt = Number.NEGATIVE_INFINITY;
  private readonly failOpenLog: LogGate;
  private readonly connectionLog: LogGate;
  /** Unique request ids without a random draw per request. */
  private readonly idPrefix = randomBytes(6).toString('base64url');
  private sequence = 0;
  /** Requests passed uncounted since the last success (reported on recovery). */
  private uncounted = 0;

  constructor(
    readonly options: RateLimitOptions,
    metrics: Metrics,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    this.redis = new Redis(options.redisUrl, {
      // Connected in onModuleInit, not when the provider is built.
      lazyConnect: true,
      // Never queue while disconnected: a request must not wait for a reconnect.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      commandTimeout: options.timeoutMs,
      connectTimeout: 2_000,
      // How long a closing socket may linger before it is destroyed (ioredis' 2 s delays shutdown while Redis is down).
      disconnectTimeout: 200,
      // Keep reconnecting in the background, at most every 2 s.
      retryStrategy: (times: number) => Math.min(times * 100, 2_000),
    });
    this.redis.defineCommand('worktrackRateLimit', { numberOfKeys: 1, lua: SLIDING_LOG_LUA });
    this.redis.defineCommand('worktrackFailuresPeek', { numberOfKeys: 1, lua: FAILURES_PEEK_LUA });
    this.redis.defineCommand('worktrackFailuresRecord', { numberOfKeys: 1, lua: FAILURES_RECORD_LUA });
    this.redis.on('error', (err: Error) => {
      if (this.connectionLog.allow()) this.logger.warn({ err: { message: err.message } }, 'rate limiter: Redis connection error');
    });
    this.failOpenTotal = counter(
      metrics,
      'worktrack_rate_limit_fail_open_total',
      'Requests let through uncounted because Redis did not answer in time (D-5 fail open), by reason.',
      ['reason'],
    );
    this.limitedTotal = counter(metrics, 'worktrack_rate_limited_total', 'Requests refused with 429 RATE_LIMITED (D-5).');
    this.addressLimitedTotal = counter(
      metrics,
      'worktrack_unauthenticated_limited_total',
      'Requests refused with 429 RATE_LIMITED because their client address had too many unauthenticated failures.',
    );
    this.addressUncheckedTotal = counter(
      metrics,
      'worktrack_unauthenticated_limit_unchecked_total',
      'Address checks or failure records skipped because Redis did not answer (fail open), by reason (timeout, unavailable, error, skipped).',
      ['reason'],
    );
    this.failOpenLog = new LogGate(options.logIntervalMs);
    this.connectionLog = new LogGate(options.logIntervalMs);
  }

  async onModuleInit(): Promise<void> {
    // Waits briefly so the first requests are counted; never blocks boot on Redis.
    try {
      await this.bounded(this.redis.connect(), 2_000);
    } catch (err) {
      this.logger.warn(
        { err: { message: (err as Error).message } },
        'rate limiter: Redis not reachable at start; failing open until it is',
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.redis.status === 'ready') {
      try {
        await this.bounded(this.redis.quit(), 1_000);
      } catch {
        // disconnect() below closes it anyway
      }
    }
    this.redis.disconnect();
  }

  /** Counts one request of `memberId` and says whether it may proceed. */
  async consume(memberId: string): Promise<RateLimitDecision> {
    const { limit, windowMs, keyPrefix, timeoutMs } = this.options;
    // The hash tag keeps one member's key on one slot should Redis ever be a cluster.
    const key = `${keyPrefix}rate-limit:{${memberId}}`;
    const requestId = `${this.idPrefix}:${(this.sequence = (this.sequence + 1) % Number.MAX_SAFE_INTEGER)}`;
    let result: [number, number, number];
    try {
      result = await this.bounded(this.redis.worktrackRateLimit(key, limit, windowMs, requestId), timeoutMs);
    } catch (err) {
      this.failOpen(err);
      return { allowed: true, limit, remaining: limit, resetSeconds: 0, counted: false };
    }
    if (this.uncounted > 0) {
      this.logger.info({ uncounted: this.uncounted }, 'rate limiter: Redis answers again; counting resumed');
      this.uncounted = 0;
      this.failOpenLog.reset();
    }
    const [allowed, count, resetMs] = result;
    if (allowed !== 1) this.limitedTotal.inc();
    return {
      allowed: allowed === 1,
      limit,
      remaining: Math.max(0, limit - count),
      resetSeconds: Math.ceil(resetMs / 1000),
      counted: true,
    };
  }

  /**
   * The failed-authentication limit (D-37): whether `address` may make another
   * request, judged by the failures recorded for it in the window. Reads
   * only; fails open like `consume`.
   */
  async checkAddress(address: string, limit: number): Promise<RateLimitDecision> {
    const { windowMs, timeoutMs } = this.options;
    const unchecked: RateLimitDecision = { allowed: true, limit, remaining: limit, resetSeconds: 0, counted: false };
    // Right after Redis failed, pass at once: a request waits for Redis at most once (the member limit keeps probing).
    if (Date.now() - this.lastFailureAt < ADDRESS_SKIP_AFTER_FAILURE_MS) {
      this.addressUncheckedTotal.inc({ reason: 'skipped' });
      return unchecked;
    }
    let count: number;
    let resetMs: number;
    try {
      [count, resetMs] = await this.bounded(this.redis.worktrackFailuresPeek(this.addressKey(address), windowMs), timeoutMs);
    } catch (err) {
      this.lastFailureAt = Date.now();
      this.addressUncheckedTotal.inc({ reason: reasonOf(err) });
      return unchecked;
    }
    const allowed = count < limit;
    if (!allowed) this.addressLimitedTotal.inc();
    return { allowed, limit, remaining: Math.max(0, limit - count), resetSeconds: Math.ceil(resetMs / 1000), counted: true };
  }

  /** Counts one unauthenticated failure (401, or an unknown hook) against `address`. Never throws. */
  async recordAddressFailure(address: string, limit: number): Promise<void> {
    const { windowMs, timeoutMs } = this.options;
    const id = `${this.idPrefix}:${(this.sequence = (this.sequence + 1) % Number.MAX_SAFE_INTEGER)}`;
    if (Date.now() - this.lastFailureAt < ADDRESS_SKIP_AFTER_FAILURE_MS) return;
    try {
      await this.bounded(this.redis.worktrackFailuresRecord(this.addressKey(address), windowMs, id, limit), timeoutMs);
    } catch (err) {
      this.lastFailureAt = Date.now();
      this.addressUncheckedTotal.inc({ reason: reasonOf(err) });
    }
  }

  private addressKey(address: string): string {
    return `${this.options.keyPrefix}unauth:{${address}}`;
  }

  private failOpen(err: unknown): void {
    this.lastFailureAt = Date.now();
    const reason = reasonOf(err);
    this.failOpenTotal.inc({ reason });
    this.uncounted += 1;
    if (this.failOpenLog.allow()) {
      this.logger.warn(
        { reason, err: { message: err instanceof Error ? err.message : String(err) }, uncounted: this.uncounted },
        'rate limiter failing open: Redis did not answer; requests pass uncounted',
      );
    }
  }

  /** `promise`, or a RedisTimeoutError after `ms` (ioredis' commandTimeout covers one command; this covers the call). */
  private async bounded<T>(promise: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        promise,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new RedisTimeoutError(ms)), ms);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}
