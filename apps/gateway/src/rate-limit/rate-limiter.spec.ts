import { ConfigError } from '@worktrack/platform';
import { LogGate, rateLimitHeaders, rateLimitOptions } from './rate-limiter';

describe('rateLimitOptions', () => {
  it('defaults to the product limit: 600 per rolling minute (D-5)', () => {
    expect(rateLimitOptions()).toMatchObject({ limit: 600, windowMs: 60_000, keyPrefix: '', timeoutMs: 150 });
  });

  it('takes what is given and ignores undefined', () => {
    expect(rateLimitOptions({ limit: 5, windowMs: 2_000, keyPrefix: 'run1.', timeoutMs: undefined })).toMatchObject({
      limit: 5,
      windowMs: 2_000,
      keyPrefix: 'run1.',
      timeoutMs: 150,
    });
  });

  it('refuses bad values, naming each', () => {
    let error: unknown;
    try {
      rateLimitOptions({ limit: 0, windowMs: 1.5, redisUrl: 'http://x', keyPrefix: 'a b' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const field of ['limit', 'windowMs', 'redisUrl', 'keyPrefix']) expect(problems).toContain(`rate limit ${field}:`);
  });
});

describe('rateLimitHeaders', () => {
  it('sets the three RateLimit headers on an allowed request, no Retry-After', () => {
    expect(rateLimitHeaders({ allowed: true, limit: 600, remaining: 599, resetSeconds: 60, counted: true })).toEqual({
      'RateLimit-Limit': '600',
      'RateLimit-Remaining': '599',
      'RateLimit-Reset': '60',
    });
  });

  it('adds Retry-After (at least 1 s) on a refusal', () => {
    expect(rateLimitHeaders({ allowed: false, limit: 5, remaining: 0, resetSeconds: 2, counted: true })).toMatchObject({
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '2',
      'Retry-After': '2',
    });
    expect(rateLimitHeaders({ allowed: false, limit: 5, remaining: 0, resetSeconds: 0, counted: true })['Retry-After']).toBe('1');
  });
});

describe('LogGate', () => {
  it('says yes at most once per interval, and again at once after a reset', () => {
    let now = 1_000;
    const gate = new LogGate(10_000, () => now);
    expect(gate.allow()).toBe(true);
    now += 9_999;
    expect(gate.allow()).toBe(false);
    now += 1;
    expect(gate.allow()).toBe(true);
    expect(gate.allow()).toBe(false);
    gate.reset();
    expect(gate.allow()).toBe(true);
  });
});
