import { Writable } from 'node:stream';
import { ConfigError, loadConfig } from '../config/load-config';
import { ServiceConfig } from '../config/base.config';
import { createLogger } from './logger';
import { REDACTED, redact, redactString } from './redact';

const TOKEN = 'wt_abcdefgh_0123456789abcdefghijABCDEFGHIJ0123456789a';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtZW1iZXIifQ.c2lnbmF0dXJlLW9mLXRoZS1qd3Q';

/** A logger writing into an array of lines. */
function capture(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, logger: createLogger('test', 'info', 'i1', sink) };
}

describe('log redaction (logs never hold credentials)', () => {
  it('removes token-like query parameters from URLs and keeps the rest', () => {
    expect(redactString(`/v1/me?access_token=${TOKEN}&limit=5`)).toBe(`/v1/me?access_token=${REDACTED}&limit=5`);
    expect(redactString('/x?Token=abc&api-key=k1&sig=s&cursor=c1&key=k2')).toBe(
      `/x?Token=${REDACTED}&api-key=${REDACTED}&sig=${REDACTED}&cursor=c1&key=${REDACTED}`,
    );
    expect(redactString('/v1/activity/events?source_type=github')).toBe('/v1/activity/events?source_type=github');
  });

  it('removes values in the token format, JWTs, bearer values, URL passwords and signatures wherever they stand', () => {
    const text = `got ${TOKEN} and ${JWT}; header Bearer abc.def; postgres://app:s3cret@db:5432/x sha256=${'a'.repeat(64)}`;
    const out = redactString(text);
    for (const secret of [TOKEN, JWT, 'abc.def', 's3cret', 'a'.repeat(64)]) expect(out).not.toContain(secret);
    expect(out).toContain('postgres://app:[REDACTED]@db:5432/x');
    // A token id alone is public (it is in every token list); the wt_<run> database names stay readable.
    expect(redactString('token abcdefgh, database wt_run1234')).toBe('token abcdefgh, database wt_run1234');
  });

  it('replaces credential fields whole, at any depth, and keeps ids and codes', () => {
    const out = redact({
      headers: { authorization: `Bearer ${TOKEN}`, cookie: 'sid=1', 'x-request-id': 'r1', 'X-Hub-Signature-256': 'sha256=00' },
      config: { JWT_SECRET: 'x', OPERATOR_TOKEN: 'y', CURSOR_SECRET: 'z', HTTP_PORT: 3000 },
      tokenId: 'abcdefgh',
      code: 'UNAUTHENTICATED',
      err: new Error(`identity refused ${TOKEN}`),
    });
    expect(out).toMatchObject({
      headers: { authorization: REDACTED, cookie: REDACTED, 'x-request-id': 'r1', 'X-Hub-Signature-256': REDACTED },
      config: { JWT_SECRET: REDACTED, OPERATOR_TOKEN: REDACTED, CURSOR_SECRET: REDACTED, HTTP_PORT: 3000 },
      tokenId: 'abcdefgh',
      code: 'UNAUTHENTICATED',
      err: { type: 'Error', message: `identity refused ${REDACTED}` },
    });
  });

  it('replaces the sign-in secrets whole: password digests, secret hashes, one-time codes, recovery codes (D-38 … D-42)', () => {
    const out = redact({
      command: {
        email: 'ada@example.com',
        passwordDigest: 'a'.repeat(64),
        currentDigest: 'b'.repeat(64),
        refreshSha256: 'c'.repeat(64),
        secretSha256: 'd'.repeat(64),
        recoveryCodeSha256s: ['e'.repeat(64)],
        totp_code: '123456',
        recovery_code: 'k3v7q-2xa9m',
        new_password: 'hunter2hunter2',
        sid: '5f0c7c1e-9a51-4f7a-9d86-6a3ff3c1c0d1',
      },
    });
    expect(out).toEqual({
      command: {
        email: 'ada@example.com',
        passwordDigest: REDACTED,
        currentDigest: REDACTED,
        refreshSha256: REDACTED,
        secretSha256: REDACTED,
        recoveryCodeSha256s: REDACTED,
        totp_code: REDACTED,
        recovery_code: REDACTED,
        new_password: REDACTED,
        sid: '5f0c7c1e-9a51-4f7a-9d86-6a3ff3c1c0d1',
      },
    });
  });

  it('removes the single sign-on secrets: code, state, nonce, PKCE verifier, client secrets (D-41)', () => {
    const callback = '/v1/auth/oidc/corp/callback?code=c0de-value-123&state=st4te-value-456&iss=https%3A%2F%2Fidp.example';
    expect(redactString(callback)).toBe(`/v1/auth/oidc/corp/callback?code=${REDACTED}&state=${REDACTED}&iss=https%3A%2F%2Fidp.example`);
    expect(redactString('https://idp.example/auth?client_id=wt&nonce=n0nce-value-789&code_verifier=v3rifier')).not.toMatch(
      /n0nce-value-789|v3rifier/,
    );
    const out = redact({
      command: {
        provider: 'corp',
        callbackQuery: 'code=c0de&state=st4te',
        codeVerifier: 'v3rifier-value',
        nonce: 'n0nce-value',
        bindingSha256: 'ab'.repeat(32),
        authorizationUrl: 'https://idp.example/auth?state=s&nonce=n',
      },
      config: { OIDC_PROVIDERS: '[{"client_secret":"s3cret"}]', client_secret: 's3cret' },
      cookies: { wt_oidc: 'binding-value' },
    });
    expect(out).toEqual({
      command: {
        provider: 'corp',
        callbackQuery: REDACTED,
        codeVerifier: REDACTED,
        nonce: REDACTED,
        bindingSha256: REDACTED,
        authorizationUrl: REDACTED,
      },
      config: { OIDC_PROVIDERS: REDACTED, client_secret: REDACTED },
      cookies: { wt_oidc: REDACTED },
    });
  });

  it('survives cycles and depth', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    expect(() => JSON.stringify(redact(a))).not.toThrow();
  });

  it('the platform logger applies it to every object and message', () => {
    const { lines, logger } = capture();
    logger.info({ url: `/v1/me?access_token=${TOKEN}`, headers: { authorization: `Bearer ${JWT}` } }, 'request');
    logger.warn(`refused ${TOKEN}`);
    logger.error({ err: new Error(`bad ${JWT}`) }, 'failed');
    const all = lines.join('');
    expect(lines).toHaveLength(3);
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain(JWT);
    expect(all).toContain('access_token=[REDACTED]');
  });

  it('configuration errors never print a secret value back', () => {
    let error: unknown;
    try {
      loadConfig(ServiceConfig, { CURSOR_SECRET: 'short-secret', DATABASE_URL: 'mysql://app:pw-in-url@db/x' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain('CURSOR_SECRET');
    expect(message).not.toContain('short-secret');
    expect(message).toContain('12 characters');
    expect(message).not.toContain('pw-in-url');
  });
});
