import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { generateKeyPair, SignJWT } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { SMTPServer } from 'smtp-server';
import { Topics } from '@worktrack/contracts';
import {
  eventually,
  freePort,
  mainOf,
  memberWithToken,
  repoRoot,
  startAppProcess,
  testKafka,
  type AppProcess,
  type MemberWithToken,
  type TestKafka,
} from '@worktrack/testing';
import { call, type ErrorBody } from './http';

/** Both apps' default PUBLIC_URL: the session JWTs' iss, the refresh routes' required Origin. */
const ORIGIN = 'http://localhost:3000';
const run = randomUUID().slice(0, 8);

interface SignedIn {
  data: {
    access_token: string;
    token_type: string;
    expires_in: number;
    member: { member_id: string; workspace_id: string; role: string; email: string };
  };
}
interface Invite {
  data: { invite_id: string; email: string; role: string; expires_at: string; accept_url: string };
}

/** The refresh cookie's value and attributes from a Set-Cookie header. */
function refreshCookie(headers: Headers): { value: string; attributes: string } | undefined {
  const line = headers.getSetCookie().find((c) => c.startsWith('wt_refresh='));
  if (!line) return undefined;
  const [pair, ...attributes] = line.split(';').map((s) => s.trim());
  return { value: pair.slice('wt_refresh='.length), attributes: attributes.join('; ') };
}

const payloadOf = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;

/** D-38 … D-40 through HTTP: the real identity service and two gateway replicas. */
describe('people signing in (D-38 … D-40)', () => {
  let identity: AppProcess;
  let g1: AppProcess;
  let g2: AppProcess;
  let owner: MemberWithToken;
  let kafka: TestKafka;
  /** Every secret the test typed or received: none may appear in a log line or a Kafka message. */
  const secrets: string[] = [];

  const invite = async (email: string, role?: string): Promise<string> => {
    const res = await call<Invite>(g1.url, 'POST', '/v1/invites', { token: owner.token, body: { email, ...(role ? { role } : {}) } });
    expect(res.status).toBe(201);
    const token = new URL(res.body.data.accept_url).searchParams.get('token')!;
    secrets.push(token);
    return token;
  };

  /** A new member of the owner's workspace, signed in through an invite: its access token and refresh cookie. */
  const newMember = async (
    name: string,
    password = `pw-${name}-${run}-long`,
  ): Promise<{ email: string; password: string; jwt: string; cookie: string }> => {
    const email = `${name}-${run}@example.com`;
    const token = await invite(email);
    secrets.push(password);
    const res = await call<SignedIn>(g1.url, 'POST', '/v1/auth/accept-invite', { body: { token, password, display_name: name } });
    expect(res.status).toBe(200);
    const cookie = refreshCookie(res.headers)!;
    secrets.push(cookie.value);
    return { email, password, jwt: res.body.data.access_token, cookie: cookie.value };
  };

  const refresh = (base: string, cookie: string | undefined, origin: string | null = ORIGIN) =>
    call<SignedIn & ErrorBody>(base, 'POST', '/v1/auth/refresh', {
      headers: { ...(cookie ? { cookie: `wt_refresh=${cookie}` } : {}), ...(origin ? { origin } : {}) },
    });

  const refusedEverywhere = (jwt: string, what: string) =>
    eventually(
      async () => {
        const answers = await Promise.all([g1, g2].map((g) => call(g.url, 'GET', '/v1/me', { token: jwt })));
        return answers.every((a) => a.status === 401);
      },
      what,
      5_000,
    );

  beforeAll(async () => {
    identity = await startAppProcess('identity');
    [g1, g2] = await Promise.all([startAppProcess('gateway'), startAppProcess('gateway')]);
    owner = memberWithToken({ workspace: `signin-${run}`, email: `owner-${run}@example.com` });
    kafka = testKafka('sign-in-e2e');
  });

  afterAll(async () => {
    await kafka?.close();
    await Promise.all([g1, g2, identity].filter(Boolean).map((p) => p.stop()));
  });

  it('serves the public keys as an RFC 7517 key set, the same on every replica (D-40)', async () => {
    const [a, b] = await Promise.all(
      [g1, g2].map((g) => call<{ keys: Array<Record<string, string>> }>(g.url, 'GET', '/.well-known/jwks.json')),
    );
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
    expect(a.body.keys.length).toBeGreaterThanOrEqual(1);
    for (const key of a.body.keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
      expect(key.kid).toEqual(expect.any(String));
      expect(key).not.toHaveProperty('d'); // public keys only
    }
  });

  it('accepts an invite: the member is created in the inviter’s workspace and signed in with a refresh cookie (D-38, D-40)', async () => {
    const email = `ada-${run}@example.com`;
    const token = await invite(email.toUpperCase(), 'admin');
    const res = await call<SignedIn>(g1.url, 'POST', '/v1/auth/accept-invite', {
      body: { token, password: `ada's password ${run}`, display_name: 'Ada', timezone: 'Europe/Berlin' },
    });
    secrets.push(`ada's password ${run}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ token_type: 'Bearer', member: { workspace_id: owner.workspaceId, role: 'admin', email } });
    expect(res.body.data.expires_in).toBeLessThanOrEqual(600);
    const cookie = refreshCookie(res.headers)!;
    secrets.push(cookie.value);
    expect(cookie.attributes).toMatch(/HttpOnly/);
    expect(cookie.attributes).toMatch(/Secure/);
    expect(cookie.attributes).toMatch(/SameSite=Strict/);
    expect(cookie.attributes).toMatch(/Path=\/v1\/auth/);
    const claims = payloadOf(res.body.data.access_token);
    expect(claims).toMatchObject({
      iss: ORIGIN,
      aud: `${ORIGIN}/v1`,
      sub: res.body.data.member.member_id,
      wid: owner.workspaceId,
      amr: ['pwd'],
    });
    expect(claims.sid).toEqual(expect.any(String));
    // The access token works on every replica; the link works once.
    for (const g of [g1, g2]) {
      const me = await call<{ data: { member_id: string } }>(g.url, 'GET', '/v1/me', { token: res.body.data.access_token });
      expect(me.body.data.member_id).toBe(res.body.data.member.member_id);
    }
    const again = await call<ErrorBody>(g1.url, 'POST', '/v1/auth/accept-invite', { body: { token, password: 'another long password' } });
    expect([again.status, again.body.error.code]).toEqual([401, 'INVALID_CREDENTIALS']);
    const taken = await call<ErrorBody>(g1.url, 'POST', '/v1/invites', { token: owner.token, body: { email } });
    expect([taken.status, taken.body.error.code]).toEqual([409, 'MEMBER_EXISTS']);
  });

  it('signs in with the password; unknown email and wrong password get the same 401 (D-39)', async () => {
    const m = await newMember('grace');
    const ok = await call<SignedIn>(g2.url, 'POST', '/v1/auth/login', { body: { email: m.email.toUpperCase(), password: m.password } });
    expect(ok.status).toBe(200);
    expect(refreshCookie(ok.headers)).toBeDefined();
    secrets.push(refreshCookie(ok.headers)!.value);
    const wrong = await call<ErrorBody>(g2.url, 'POST', '/v1/auth/login', {
      body: { email: m.email, password: 'not the password at all' },
    });
    const unknown = await call<ErrorBody>(g2.url, 'POST', '/v1/auth/login', {
      body: { email: `nobody-${run}@example.com`, password: m.password },
    });
    expect([wrong.status, wrong.body]).toEqual([unknown.status, unknown.body]);
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'INVALID_CREDENTIALS']);
    expect(refreshCookie(wrong.headers)).toBeUndefined();
  });

  it('refuses bad input with 4xx and stores nothing: a 10 KB password, NUL in the email, unknown fields (D-3, D-39)', async () => {
    const cases: Array<[unknown, number]> = [
      [{ email: `x-${run}@example.com`, password: 'p'.repeat(10_240) }, 400],
      [{ email: `x\u0000-${run}@example.com`, password: 'a fine password' }, 400],
      [{ email: 'not an email', password: 'a fine password' }, 400],
      [{ email: `x-${run}@example.com`, password: 'a fine password', admin: true }, 400],
      [{ email: `x-${run}@example.com` }, 400],
    ];
    for (const [body, status] of cases) {
      const res = await call<ErrorBody>(g1.url, 'POST', '/v1/auth/login', { body });
      expect({ body: JSON.stringify(body).slice(0, 80), status: res.status }).toEqual({ body: JSON.stringify(body).slice(0, 80), status });
      expect(refreshCookie(res.headers)).toBeUndefined();
    }
    const shortPassword = await call<ErrorBody>(g1.url, 'POST', '/v1/auth/accept-invite', {
      body: { token: 'a'.repeat(43), password: 'short' },
    });
    expect([shortPassword.status, shortPassword.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('refreshes only from the app’s own origin, rotates the secret, and ends the session when a rotated-out secret comes back (D-40)', async () => {
    const m = await newMember('linus');
    // Another origin, or none: refused, and nothing ends.
    for (const origin of ['https://evil.example', null]) {
      const refused = await refresh(g1.url, m.cookie, origin);
      expect([refused.status, refused.body.error.code]).toEqual([403, 'FORBIDDEN']);
    }
    const noCookie = await refresh(g1.url, undefined);
    expect([noCookie.status, noCookie.body.error.code]).toEqual([401, 'UNAUTHENTICATED']);

    const renewed = await refresh(g2.url, m.cookie);
    expect(renewed.status).toBe(200);
    const next = refreshCookie(renewed.headers)!;
    secrets.push(next.value);
    expect(next.value).not.toBe(m.cookie);
    const jwt = renewed.body.data.access_token;
    expect(payloadOf(jwt).sid).toBe(payloadOf(m.jwt).sid);
    expect((await call(g1.url, 'GET', '/v1/me', { token: jwt })).status).toBe(200);

    // The rotated-out secret again: reuse ends the browser session, and every replica refuses its tokens within 5 s.
    const reuse = await refresh(g1.url, m.cookie);
    expect([reuse.status, reuse.body.error.code]).toEqual([401, 'UNAUTHENTICATED']);
    await refusedEverywhere(jwt, 'the reused session’s access token refused by both replicas');
    expect((await refresh(g1.url, next.value)).status).toBe(401);
  });

  it('logs out and ends one session by id: refused by every replica within 5 s; another member’s session is a 404 (D-40)', async () => {
    const m = await newMember('barbara');
    const second = await call<SignedIn>(g1.url, 'POST', '/v1/auth/login', { body: { email: m.email, password: m.password } });
    const secondCookie = refreshCookie(second.headers)!.value;
    secrets.push(secondCookie);
    const listed = await call<{ data: Array<{ sid: string; current: boolean; user_agent: string | null }> }>(
      g2.url,
      'GET',
      '/v1/auth/sessions',
      {
        token: m.jwt,
      },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(2);
    expect(listed.body.data.filter((s) => s.current).map((s) => s.sid)).toEqual([payloadOf(m.jwt).sid]);

    const other = await newMember('edsger');
    const foreign = await call<ErrorBody>(g1.url, 'DELETE', `/v1/auth/sessions/${String(payloadOf(second.body.data.access_token).sid)}`, {
      token: other.jwt,
    });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'NOT_FOUND']);

    const ended = await call(g1.url, 'DELETE', `/v1/auth/sessions/${String(payloadOf(second.body.data.access_token).sid)}`, {
      token: m.jwt,
    });
    expect(ended.status).toBe(200);
    await refusedEverywhere(second.body.data.access_token, 'an ended session refused by both replicas');

    const out = await call<{ data: { signed_out: boolean } }>(g2.url, 'POST', '/v1/auth/logout', {
      headers: { cookie: `wt_refresh=${m.cookie}`, origin: ORIGIN },
    });
    expect(out.body.data.signed_out).toBe(true);
    expect(refreshCookie(out.headers)?.value).toBe(''); // cleared
    await refusedEverywhere(m.jwt, 'a logged-out session refused by both replicas');
  });

  it('changes the password and ends the other sessions; a deactivated member’s tokens are refused (D-39, D-40)', async () => {
    const m = await newMember('tony');
    const other = await call<SignedIn>(g1.url, 'POST', '/v1/auth/login', { body: { email: m.email, password: m.password } });
    secrets.push(refreshCookie(other.headers)!.value);
    const wrong = await call<ErrorBody>(g1.url, 'POST', '/v1/me/password', {
      token: m.jwt,
      body: { current_password: 'wrong wrong wrong', new_password: 'a brand new password' },
    });
    expect([wrong.status, wrong.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const changed = await call<{ data: { ended_sessions: number } }>(g1.url, 'POST', '/v1/me/password', {
      token: m.jwt,
      body: { current_password: m.password, new_password: `a brand new password ${run}` },
    });
    secrets.push(`a brand new password ${run}`);
    expect(changed.body.data.ended_sessions).toBe(1);
    await refusedEverywhere(other.body.data.access_token, 'the other session refused after the password change');
    expect((await call(g2.url, 'GET', '/v1/me', { token: m.jwt })).status).toBe(200);

    const memberId = payloadOf(m.jwt).sub as string;
    const deactivated = await call(g1.url, 'POST', `/v1/members/${memberId}/deactivate`, { token: owner.token });
    expect(deactivated.status).toBe(200);
    await refusedEverywhere(m.jwt, 'a deactivated member’s access token refused by both replicas');
    const login = await call<ErrorBody>(g1.url, 'POST', '/v1/auth/login', {
      body: { email: m.email, password: `a brand new password ${run}` },
    });
    expect([login.status, login.body.error.code]).toEqual([401, 'INVALID_CREDENTIALS']);
  });

  it('refuses JWTs that are not worktrack’s: alg none, a foreign audience, a wrong issuer, an unknown key, a tampered payload (D-40)', async () => {
    const m = await newMember('alan');
    const claims = payloadOf(m.jwt);
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
    const [h, , sig] = m.jwt.split('.');
    const tampered = `${h}.${b64({ ...claims, sub: randomUUID() })}.${sig}`;
    // A key of our own under the kid of worktrack's: the signature does not verify.
    const { privateKey } = await generateKeyPair('ES256');
    const kid = (JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { kid: string }).kid;
    const sign = (over: Record<string, unknown>, keyId = kid) =>
      new SignJWT({ ...claims, ...over }).setProtectedHeader({ alg: 'ES256', kid: keyId }).sign(privateKey);
    const forged = await sign({});
    const unknownKid = await sign({}, 'not-a-worktrack-kid');
    // An RS256 token with worktrack's claims is tried the D-11 way: no JWT_PUBLIC_KEY configured, so refused.
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rs = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(rsa.privateKey);
    for (const [what, jwt] of Object.entries({ none, tampered, forged, unknownKid, rs })) {
      const res = await call<ErrorBody>(g1.url, 'GET', '/v1/me', { token: jwt });
      expect({ what, status: res.status, code: res.body.error.code }).toEqual({ what, status: 401, code: 'UNAUTHENTICATED' });
    }
    // A gateway of another deployment (another PUBLIC_URL): worktrack's genuine token has a foreign iss and aud there.
    const elsewhere = await startAppProcess('gateway', { PUBLIC_URL: 'https://elsewhere.example' });
    try {
      const res = await call<ErrorBody>(elsewhere.url, 'GET', '/v1/me', { token: m.jwt });
      expect([res.status, res.body.error.code]).toEqual([401, 'UNAUTHENTICATED']);
      expect((await call(g1.url, 'GET', '/v1/me', { token: m.jwt })).status).toBe(200);
    } finally {
      await elsewhere.stop();
    }
  });

  it('prints an invite link from the admin command; it sets the password of a member who has none (D-14, D-38)', async () => {
    const admin = (args: string[]) =>
      spawnSync(process.execPath, [mainOf('identity'), 'admin', 'invite', ...args], {
        cwd: repoRoot(),
        encoding: 'utf8',
        env: { ...process.env, LOG_LEVEL: 'error' },
        timeout: 60_000,
      });
    // The bootstrap owner (D-14) has a token but no password: the operator's link sets one and signs them in as themself.
    const printed = admin(['--workspace', `signin-${run}`, '--email', `owner-${run}@example.com`]);
    expect(printed.status).toBe(0);
    const line = JSON.parse(printed.stdout.trim()) as { accept_url: string; role: string; workspace_id: string };
    expect(line).toMatchObject({ role: 'owner', workspace_id: owner.workspaceId });
    expect(line.accept_url).toMatch(/^http:\/\/localhost:3000\/accept-invite\?token=[A-Za-z0-9_-]{43}$/);
    const token = new URL(line.accept_url).searchParams.get('token')!;
    secrets.push(token, `owner password ${run}`);
    const accepted = await call<SignedIn>(g2.url, 'POST', '/v1/auth/accept-invite', { body: { token, password: `owner password ${run}` } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.member).toMatchObject({ member_id: owner.memberId, role: 'owner' });
    secrets.push(refreshCookie(accepted.headers)!.value);
    // Now they have a password: another link for them is refused, with a message naming why.
    const again = admin(['--workspace', `signin-${run}`, '--email', `owner-${run}@example.com`]);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/MEMBER_EXISTS/);
    expect(admin(['--workspace', 'x', '--email', 'not-an-email']).status).toBe(2);
  });

  it('mails the invite link when a mail server is configured (D-38)', async () => {
    const mails: Array<{ to: string[]; body: string }> = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        let body = '';
        stream.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        stream.on('end', () => {
          mails.push({ to: session.envelope.rcptTo.map((r) => r.address), body });
          callback();
        });
      },
    });
    const port = await freePort();
    await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve));
    const mailing = await startAppProcess('gateway', {
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      MAIL_FROM: 'worktrack <invites@example.com>',
    });
    try {
      const email = `mailed-${run}@example.com`;
      const res = await call<Invite>(mailing.url, 'POST', '/v1/invites', { token: owner.token, body: { email } });
      expect(res.status).toBe(201);
      secrets.push(new URL(res.body.data.accept_url).searchParams.get('token')!);
      expect(mails).toHaveLength(1);
      expect(mails[0].to).toEqual([email]);
      // The link, unbroken by line folding (quoted-printable soft breaks removed).
      expect(mails[0].body.replace(/=\r?\n/g, '').replace(/=3D/g, '=')).toContain(res.body.data.accept_url);
    } finally {
      await mailing.stop();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });

  it('turns two-factor on and off, asks for the second factor, and lets a required workspace only enrol (D-42)', async () => {
    const totpOf = (secret: string, offsetSteps = 0) =>
      new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({
        timestamp: Date.now() + offsetSteps * 30_000,
      });
    // A workspace of its own: a bootstrap owner (API token) invites a second owner who signs in by password.
    const boot = memberWithToken({ workspace: `2fa-${run}`, email: `boot-${run}@example.com` });
    const link = await call<Invite>(g1.url, 'POST', '/v1/invites', {
      token: boot.token,
      body: { email: `owner2-${run}@example.com`, role: 'owner' },
    });
    const ownerToken = new URL(link.body.data.accept_url).searchParams.get('token')!;
    secrets.push(ownerToken);
    const signedUp = await call<SignedIn>(g1.url, 'POST', '/v1/auth/accept-invite', {
      body: { token: ownerToken, password: `owner2 password ${run}` },
    });
    const jwt = signedUp.body.data.access_token;

    // Requiring two-factor needs it on for yourself first.
    const early = await call<ErrorBody>(g1.url, 'PATCH', '/v1/workspace', { token: jwt, body: { require_two_factor: 'all' } });
    expect([early.status, early.body.error.code]).toEqual([403, 'FORBIDDEN']);

    const started = await call<{ data: { secret: string; otpauth_uri: string } }>(g1.url, 'POST', '/v1/me/totp', { token: jwt });
    expect(started.status).toBe(200);
    expect(started.body.data.otpauth_uri).toMatch(/^otpauth:\/\/totp\//);
    const secret = started.body.data.secret;
    const badConfirm = await call<ErrorBody>(g1.url, 'POST', '/v1/me/totp/confirm', {
      token: jwt,
      body: { code: '000000' === totpOf(secret) ? '111111' : '000000' },
    });
    expect(badConfirm.status).toBe(400);
    const confirmed = await call<{ data: { recovery_codes: string[] } }>(g1.url, 'POST', '/v1/me/totp/confirm', {
      token: jwt,
      body: { code: totpOf(secret) },
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data.recovery_codes).toHaveLength(10);
    secrets.push(...confirmed.body.data.recovery_codes);

    // Sign-in now asks for the second factor; a code of the next step (one step of drift) or a recovery code (once) works.
    const login = (extra: Record<string, string>) =>
      call<SignedIn & ErrorBody>(g2.url, 'POST', '/v1/auth/login', {
        body: { email: `owner2-${run}@example.com`, password: `owner2 password ${run}`, ...extra },
      });
    const missing = await login({});
    expect([missing.status, missing.body.error.code]).toEqual([401, 'SECOND_FACTOR_REQUIRED']);
    const withCode = await login({ totp_code: totpOf(secret, 1) });
    expect(withCode.status).toBe(200);
    expect(payloadOf(withCode.body.data.access_token).amr).toEqual(['pwd', 'otp']);
    const recovery = confirmed.body.data.recovery_codes[0];
    expect((await login({ recovery_code: recovery })).status).toBe(200);
    expect((await login({ recovery_code: recovery })).body.error.code).toBe('INVALID_CREDENTIALS');

    // Required of everyone: a new member's browser session may only enrol; API tokens are not affected.
    const required = await call<{ data: { require_two_factor: string } }>(g1.url, 'PATCH', '/v1/workspace', {
      token: jwt,
      body: { require_two_factor: 'all' },
    });
    expect(required.body.data.require_two_factor).toBe('all');
    const memberLink = await call<Invite>(g1.url, 'POST', '/v1/invites', {
      token: boot.token,
      body: { email: `plain2-${run}@example.com` },
    });
    const memberToken = new URL(memberLink.body.data.accept_url).searchParams.get('token')!;
    secrets.push(memberToken);
    const plain = await call<SignedIn>(g1.url, 'POST', '/v1/auth/accept-invite', {
      body: { token: memberToken, password: `plain2 password ${run}` },
    });
    const blocked = await call<ErrorBody>(g1.url, 'GET', '/v1/tokens', { token: plain.body.data.access_token });
    expect([blocked.status, blocked.body.error.code]).toEqual([403, 'TWO_FACTOR_REQUIRED']);
    expect((await call(g1.url, 'GET', '/v1/me', { token: plain.body.data.access_token })).status).toBe(200);
    expect((await call(g1.url, 'POST', '/v1/me/totp', { token: plain.body.data.access_token })).status).toBe(200);
    expect((await call(g1.url, 'GET', '/v1/tokens', { token: boot.token })).status).toBe(200);

    // Off again with a current code (back to none first: an owner keeps two-factor while requiring it).
    await call(g1.url, 'PATCH', '/v1/workspace', { token: jwt, body: { require_two_factor: 'none' } });
    const off = await call<{ data: { totp: string } }>(g1.url, 'DELETE', '/v1/me/totp', { token: jwt, body: { code: totpOf(secret, -1) } });
    expect(off.body.data.totp).toBe('off');
    expect((await login({})).status).toBe(200);
  });

  it('API tokens expire when asked, list last use to the minute, and can be renamed (D-43)', async () => {
    const created = await call<{ data: { token_id: string; token: string; expires_at: string | null } }>(g1.url, 'POST', '/v1/tokens', {
      token: owner.token,
      body: { name: 'short-lived', scope: 'full', expires_in_days: 1 },
    });
    expect(created.status).toBe(201);
    secrets.push(created.body.data.token);
    expect(Date.parse(created.body.data.expires_at!) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect((await call(g2.url, 'GET', '/v1/me', { token: created.body.data.token })).status).toBe(200);
    const bad = await call<ErrorBody>(g1.url, 'POST', '/v1/tokens', {
      token: owner.token,
      body: { name: 'x', scope: 'full', expires_in_days: 366 },
    });
    expect(bad.status).toBe(400);
    const renamed = await call<{ data: { name: string } }>(g1.url, 'PATCH', `/v1/tokens/${created.body.data.token_id}`, {
      token: owner.token,
      body: { name: 'renamed' },
    });
    expect(renamed.body.data.name).toBe('renamed');
    const listed = await call<{ data: Array<{ token_id: string; last_used_at: string | null; name: string }> }>(
      g1.url,
      'GET',
      '/v1/tokens?limit=100',
      {
        token: owner.token,
      },
    );
    const entry = listed.body.data.find((t) => t.token_id === created.body.data.token_id)!;
    expect(entry.name).toBe('renamed');
    await eventually(async () => {
      const l = await call<{ data: Array<{ token_id: string; last_used_at: string | null }> }>(g1.url, 'GET', '/v1/tokens?limit=100', {
        token: owner.token,
      });
      const e = l.body.data.find((t) => t.token_id === created.body.data.token_id);
      return e?.last_used_at !== null && e?.last_used_at !== undefined && /:00\.000Z$/.test(e.last_used_at);
    }, 'last_used_at to the minute');
  });

  it('keeps secrets out of logs and Kafka: passwords, refresh secrets and invite links (D-38 … D-40)', async () => {
    const seen: string[] = [];
    let lastAt = Date.now();
    const groupId = kafka.client.group(`secrets-${run}`);
    const consumer = await kafka.client.startConsumer({
      groupId,
      topics: [kafka.client.topic(Topics.identityCommands), kafka.client.topic(Topics.identityEvents)],
      fromBeginning: true,
      concurrency: 1,
      eachMessage: ({ message }) => {
        if (message.value) seen.push(message.value.toString('utf8'));
        lastAt = Date.now();
        return Promise.resolve();
      },
    });
    await eventually(
      // Read to the end: nothing new for 2 s.
      () => seen.length > 0 && Date.now() - lastAt > 2_000,
      'identity messages read back',
      20_000,
    );
    await kafka.client.stopPrivateConsumer(consumer, groupId);
    const output = [identity.output(), g1.output(), g2.output()].join('\n');
    expect(secrets.length).toBeGreaterThan(2); // the earlier tests of this file collect them
    for (const secret of secrets) {
      expect({ secret: secret.slice(0, 6), inLogs: output.includes(secret) }).toEqual({ secret: secret.slice(0, 6), inLogs: false });
      expect({ secret: secret.slice(0, 6), inKafka: seen.some((v) => v.includes(secret)) }).toEqual({
        secret: secret.slice(0, 6),
        inKafka: false,
      });
    }
  });
});
