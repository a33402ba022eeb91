import { randomUUID } from 'node:crypto';
import { Topics } from '@worktrack/contracts';
import {
  CookieJar,
  eventually,
  followRedirectsUntil,
  freePort,
  startAppProcess,
  startTestOidcProvider,
  testKafka,
  type AppProcess,
  type TestKafka,
  type TestOidcProvider,
} from '@worktrack/testing';
import { call } from './http';

const run = randomUUID().slice(0, 8);

interface Begun {
  /** The gateway's binding cookie (`wt_oidc`) and its attributes. */
  binding: string;
  bindingAttributes: string;
  /** The provider's redirect back, as the browser would follow it (the gateway's callback). */
  callback: URL;
}

/** Single sign-on (D-41) through HTTP: a real OpenID provider, the real identity service and gateway; the browser is fetch with cookies. */
describe('single sign-on through the gateway (D-41)', () => {
  let identity: AppProcess;
  let gateway: AppProcess;
  let idp: TestOidcProvider;
  let kafka: TestKafka;
  let publicUrl: string;
  /** Everything secret the test saw: none may appear in a log line; the binding, refresh and client secret on no Kafka message either. */
  const secrets: string[] = [];
  const oneTime: string[] = [];

  /** A browser starting a sign-in with `return_to`, through the provider's (form-less) interaction, up to the redirect back. */
  const begin = async (returnTo = '/plate', provider = 'corp'): Promise<Begun> => {
    const start = await fetch(`${gateway.url}/v1/auth/oidc/${provider}/start?return_to=${encodeURIComponent(returnTo)}`, {
      redirect: 'manual',
    });
    expect(start.status).toBe(302);
    const line = start.headers.getSetCookie().find((c) => c.startsWith('wt_oidc='))!;
    const [pair, ...attributes] = line.split(';').map((s) => s.trim());
    const binding = pair.slice('wt_oidc='.length);
    secrets.push(binding);
    const back = await followRedirectsUntil(start.headers.get('location')!, `${publicUrl}/v1/auth/oidc/${provider}/callback`);
    const callback = new URL(back);
    oneTime.push(callback.searchParams.get('code')!, callback.searchParams.get('state')!);
    return { binding, bindingAttributes: attributes.join('; '), callback };
  };

  /** The browser arriving at the gateway's callback with (or without) its binding cookie. */
  const arrive = (callback: URL, binding?: string): Promise<Response> =>
    fetch(`${gateway.url}${callback.pathname}${callback.search}`, {
      redirect: 'manual',
      headers: binding ? { cookie: `wt_oidc=${binding}` } : {},
    });

  const expectPage = async (response: Response, status: number, says: RegExp): Promise<void> => {
    const body = await response.text();
    expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({ status, type: 'text/html; charset=utf-8' });
    expect(body).toMatch(says);
    expect(body).toContain('href="/sign-in"');
    for (const s of [...secrets, ...oneTime, idp.clientSecret]) expect(body).not.toContain(s);
  };

  beforeAll(async () => {
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    idp = await startTestOidcProvider([`${publicUrl}/v1/auth/oidc/corp/callback`]);
    secrets.push(idp.clientSecret);
    const providers = JSON.stringify([
      {
        id: 'corp',
        name: 'Corp SSO',
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        workspace: `sso-e2e-${run}`,
        allowed_email_domains: ['corp.example'],
        allow_signup: true,
      },
      { id: 'down', name: 'Down SSO', issuer: 'http://127.0.0.1:9', client_id: 'x', client_secret: 'y', workspace: `sso-e2e-${run}` },
    ]);
    identity = await startAppProcess('identity', { PUBLIC_URL: publicUrl, OIDC_PROVIDERS: providers }, 60_000);
    gateway = await startAppProcess('gateway', { HTTP_PORT: String(port), PUBLIC_URL: publicUrl }, 60_000);
    kafka = testKafka('oidc-e2e');
  });

  afterAll(async () => {
    await kafka?.close();
    await Promise.all([gateway, identity].filter(Boolean).map((p) => p.stop()));
    await idp?.close();
  });

  it('lists the providers and says password sign-in is on (D-41)', async () => {
    const res = await call<{ data: unknown[]; meta: unknown }>(gateway.url, 'GET', '/v1/auth/providers');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { id: 'corp', name: 'Corp SSO' },
        { id: 'down', name: 'Down SSO' },
      ],
      meta: { password_login: true },
    });
  });

  it('signs in through the provider: code flow with PKCE, the refresh cookie set, back to return_to; the session works (D-41, D-40)', async () => {
    idp.signInAs({ sub: `ada-${run}`, email: `ada-${run}@corp.example`, email_verified: true, name: 'Ada' });
    const { binding, bindingAttributes, callback } = await begin('/plate?day=today');
    expect(bindingAttributes.split('; ').sort()).toEqual(['HttpOnly', 'Max-Age=600', 'Path=/v1/auth/oidc', 'SameSite=Lax', 'Secure']);
    const done = await arrive(callback, binding);
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe('/plate?day=today');
    const refresh = done.headers.getSetCookie().find((c) => c.startsWith('wt_refresh='))!;
    expect(refresh).toMatch(/HttpOnly/);
    expect(refresh).toMatch(/SameSite=Strict/);
    expect(done.headers.getSetCookie().some((c) => /^wt_oidc=;/.test(c))).toBe(true);
    const jar = new CookieJar();
    jar.store(done);
    secrets.push(jar.get('wt_refresh')!);

    const renewed = await fetch(`${gateway.url}/v1/auth/refresh`, { method: 'POST', headers: { cookie: jar.header(), origin: publicUrl } });
    expect(renewed.status).toBe(200);
    const { data } = (await renewed.json()) as { data: { access_token: string } };
    const me = await call<{ data: { email: string; role: string } }>(gateway.url, 'GET', '/v1/me', { token: data.access_token });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ email: `ada-${run}@corp.example`, role: 'owner' });

    // The same answer again (a replayed state, and its code): refused with a page.
    await expectPage(await arrive(callback, binding), 401, /was not started in this browser, was already used/);
  });

  it('refuses a wrong state, a missing binding, an unverified email and a foreign domain, each with a page that says why (D-41)', async () => {
    idp.signInAs({ sub: `bob-${run}`, email: `bob-${run}@corp.example`, email_verified: true });
    const wrong = await begin();
    const tampered = new URL(wrong.callback);
    tampered.searchParams.set('state', 'forged-state');
    await expectPage(await arrive(tampered, wrong.binding), 401, /does not belong to the sign-in this browser started/);

    const elsewhere = await begin();
    await expectPage(await arrive(elsewhere.callback), 401, /was not started in this browser/);

    idp.signInAs({ sub: `eve-${run}`, email: `eve-${run}@corp.example`, email_verified: false });
    const unverified = await begin();
    await expectPage(await arrive(unverified.callback, unverified.binding), 403, /has not verified your email address/);

    idp.signInAs({ sub: `mallory-${run}`, email: `mallory-${run}@evil.example`, email_verified: true });
    const foreign = await begin();
    await expectPage(await arrive(foreign.callback, foreign.binding), 403, /Email addresses at evil\.example cannot sign in/);
  });

  it('refuses a replayed code under a fresh state: the provider will not take it twice (D-41)', async () => {
    idp.signInAs({ sub: `carol-${run}`, email: `carol-${run}@corp.example`, email_verified: true });
    const first = await begin();
    expect((await arrive(first.callback, first.binding)).status).toBe(302);
    const second = await begin();
    const replay = new URL(second.callback);
    replay.searchParams.set('code', first.callback.searchParams.get('code')!);
    await expectPage(await arrive(replay, second.binding), 401, /refused the sign-in code/);
  });

  it.each(['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)'])(
    'never redirects off the app: return_to %s goes to / (D-41)',
    async (returnTo) => {
      idp.signInAs({ sub: `dan-${run}`, email: `dan-${run}@corp.example`, email_verified: true });
      const { binding, callback } = await begin(returnTo);
      const done = await arrive(callback, binding);
      expect(done.status).toBe(302);
      expect(done.headers.get('location')).toBe('/');
    },
  );

  it('an unknown provider is a 404 page, one that cannot be reached a 503 page; the gateway keeps serving (D-41)', async () => {
    await expectPage(await fetch(`${gateway.url}/v1/auth/oidc/nope/start`, { redirect: 'manual' }), 404, /no sign-in provider/i);
    await expectPage(await fetch(`${gateway.url}/v1/auth/oidc/Bad%20Id/start`, { redirect: 'manual' }), 404, /no such sign-in provider/i);
    const down = await fetch(`${gateway.url}/v1/auth/oidc/down/start`, { redirect: 'manual' });
    expect(down.headers.get('retry-after')).toBe('30');
    await expectPage(down, 503, /Down SSO cannot be reached right now/);
    expect((await call(gateway.url, 'GET', '/v1/auth/providers')).status).toBe(200);
  });

  it('keeps the secrets out of logs (code, state, binding, refresh, client secret) and the browser-held ones off Kafka (D-41)', async () => {
    const seen: string[] = [];
    let lastAt = Date.now();
    const groupId = kafka.client.group(`oidc-secrets-${run}`);
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
    await eventually(() => seen.length > 0 && Date.now() - lastAt > 2_000, 'identity messages read back', 20_000);
    await kafka.client.stopPrivateConsumer(consumer, groupId);
    const output = [identity.output(), gateway.output()].join('\n');
    expect(secrets.length).toBeGreaterThan(5);
    for (const secret of [...secrets, ...oneTime]) {
      expect({ secret: secret.slice(0, 6), inLogs: output.includes(secret) }).toEqual({ secret: secret.slice(0, 6), inLogs: false });
    }
    for (const secret of secrets) {
      expect({ secret: secret.slice(0, 6), inKafka: seen.some((v) => v.includes(secret)) }).toEqual({
        secret: secret.slice(0, 6),
        inKafka: false,
      });
    }
  });
});
