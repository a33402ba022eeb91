import { randomBytes, randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  FinishOidcSignIn,
  ListSignInMethods,
  secretSha256,
  SignIn,
  StartOidcSignIn,
  passwordDigest,
  type CommandContract,
} from '@worktrack/contracts';
import { CommandClient, DomainError, startService } from '@worktrack/platform';
import {
  followRedirectsUntil,
  startTestOidcProvider,
  testConfig,
  testKafka,
  type TestKafka,
  type TestOidcProvider,
} from '@worktrack/testing';
import { IdentityAppModule } from '../src/app.module';
import { IdentityConfig } from '../src/identity.config';
import { IdentityMembersRepository } from '../src/members/members.repository';

const PUBLIC_URL = 'https://app.worktrack.test';
const secret = (): string => randomBytes(32).toString('base64url');
const callbackOf = (id: string): string => `${PUBLIC_URL}/v1/auth/oidc/${id}/callback`;

/** Single sign-on (D-41) through identity's real command topic, against a real OpenID provider (oidc-provider). */
describe('identity: single sign-on with OpenID Connect (D-41)', () => {
  let app: NestFastifyApplication;
  let kafka: TestKafka;
  let rpc: CommandClient;
  let idp: TestOidcProvider;
  const run = randomUUID().slice(0, 8);
  const workspace = `sso-${run}`;
  const closedWorkspace = `sso-closed-${run}`;

  const send = <T extends object, R extends object>(contract: CommandContract<T, R>, payload: T): Promise<R> =>
    rpc.send(contract, payload, { key: 'oidc' });

  const codeOf = (p: Promise<unknown>): Promise<string> =>
    p.then(
      () => 'OK',
      (err: unknown) => (err instanceof DomainError ? `${err.code}: ${err.message}` : String(err)),
    );

  /** A browser's sign-in up to the provider's redirect back: its binding and the callback's query string. */
  const atCallback = async (provider: string, returnTo?: string): Promise<{ binding: string; query: string }> => {
    const binding = secret();
    const { authorizationUrl } = await send(StartOidcSignIn, {
      provider,
      bindingSha256: secretSha256(binding),
      ...(returnTo !== undefined ? { returnTo } : {}),
    });
    const back = await followRedirectsUntil(authorizationUrl, callbackOf(provider));
    return { binding, query: new URL(back).search.slice(1) };
  };

  const finish = (provider: string, binding: string | undefined, query: string) =>
    send(FinishOidcSignIn, {
      provider,
      ...(binding ? { bindingSha256: secretSha256(binding) } : {}),
      callbackQuery: query,
      refreshSha256: secretSha256(secret()),
    });

  beforeAll(async () => {
    idp = await startTestOidcProvider([callbackOf('corp'), callbackOf('closed')]);
    const providers = [
      {
        id: 'corp',
        name: 'Corp SSO',
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        workspace,
        allowed_email_domains: ['corp.example'],
        allow_signup: true,
      },
      {
        id: 'closed',
        name: 'Closed SSO',
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        workspace: closedWorkspace,
        allowed_email_domains: [],
        allow_signup: false,
      },
      // Nothing listens there: its sign-in fails with a page, identity starts all the same.
      {
        id: 'down',
        name: 'Down SSO',
        issuer: 'http://127.0.0.1:9',
        client_id: 'x',
        client_secret: 'never-logged-secret',
        workspace,
        allowed_email_domains: [],
        allow_signup: false,
      },
    ];
    app = await startService(
      'identity',
      IdentityAppModule,
      testConfig(IdentityConfig, {
        PUBLIC_URL,
        ARGON2_MEMORY_KIB: '8192',
        ARGON2_PASSES: '1',
        OIDC_PROVIDERS: JSON.stringify(providers),
        PASSWORD_LOGIN: 'false',
      }),
    );
    kafka = testKafka('identity-oidc-it');
    rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 20_000 });
    await rpc.start();
  });

  afterAll(async () => {
    await rpc?.stop();
    await kafka?.close();
    await app?.close();
    await idp?.close();
  });

  it('lists the providers by id and name, and that password sign-in is off (D-41)', async () => {
    expect(await send(ListSignInMethods, { reason: 'test' })).toEqual({
      providers: [
        { id: 'corp', name: 'Corp SSO' },
        { id: 'closed', name: 'Closed SSO' },
        { id: 'down', name: 'Down SSO' },
      ],
      passwordLogin: false,
    });
    expect(
      await codeOf(
        send(SignIn, {
          email: 'a@corp.example',
          passwordDigest: passwordDigest('x'.repeat(12)),
          address: '192.0.2.1',
          refreshSha256: secretSha256(secret()),
        }),
      ),
    ).toMatch(/^FORBIDDEN/);
  });

  it('asks for the code flow with PKCE S256, state and nonce, at the discovered endpoint (D-41)', async () => {
    const { authorizationUrl } = await send(StartOidcSignIn, {
      provider: 'corp',
      bindingSha256: secretSha256(secret()),
      returnTo: '/plate',
    });
    const url = new URL(authorizationUrl);
    expect(url.origin).toBe(idp.issuer);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.get('nonce')).toBeTruthy();
    expect(url.searchParams.get('redirect_uri')).toBe(callbackOf('corp'));
    expect(url.searchParams.get('scope')).toBe('openid email profile');
  });

  it('creates the member on first sign-in (the workspace too), links it the next time, and goes back to return_to (D-41, D-14)', async () => {
    idp.signInAs({ sub: `ada-${run}`, email: `Ada-${run}@Corp.example`, email_verified: true, name: 'Ada Lovelace' });
    const first = await atCallback('corp', '/sessions?range=week');
    const one = await finish('corp', first.binding, first.query);
    expect(one.returnTo).toBe('/sessions?range=week');
    expect(one.signedIn.member).toMatchObject({
      email: `ada-${run}@corp.example`,
      displayName: 'Ada Lovelace',
      role: 'owner',
      kind: 'human',
    });
    expect(one.signedIn.accessToken.split('.')).toHaveLength(3);

    const again = await atCallback('corp');
    const two = await finish('corp', again.binding, again.query);
    expect(two.signedIn.member.memberId).toBe(one.signedIn.member.memberId);
    expect(two.signedIn.sid).not.toBe(one.signedIn.sid);
    expect(two.returnTo).toBe('/');

    idp.signInAs({ sub: `bob-${run}`, email: `bob-${run}@corp.example`, email_verified: true });
    const bob = await atCallback('corp');
    expect((await finish('corp', bob.binding, bob.query)).signedIn.member).toMatchObject({ role: 'member', displayName: `bob-${run}` });
  });

  it('links to an existing member of the workspace, and refuses an unknown person when joining is not allowed (D-41)', async () => {
    const members = app.get(IdentityMembersRepository);
    const email = `carol-${run}@else.example`;
    const existing = await members.transaction(async (manager) => {
      const ws = await members.upsertWorkspace(manager, randomUUID(), closedWorkspace);
      return members.insertMember(manager, {
        id: randomUUID(),
        workspaceId: ws.id,
        kind: 'human',
        role: 'owner',
        displayName: 'Carol',
        email,
        timezone: 'Europe/Berlin',
        workingHours: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
        plateCapacity: 5,
        createdBy: null,
      });
    });
    idp.signInAs({ sub: `carol-${run}`, email, email_verified: true });
    const carol = await atCallback('closed');
    expect((await finish('closed', carol.binding, carol.query)).signedIn.member.memberId).toBe(existing.id);

    idp.signInAs({ sub: `dan-${run}`, email: `dan-${run}@else.example`, email_verified: true });
    const dan = await atCallback('closed');
    expect(await codeOf(finish('closed', dan.binding, dan.query))).toMatch(/^FORBIDDEN: No member of this workspace has your email/);
  });

  it('refuses an unverified email and a foreign domain (D-41)', async () => {
    idp.signInAs({ sub: `eve-${run}`, email: `eve-${run}@corp.example`, email_verified: false });
    const unverified = await atCallback('corp');
    expect(await codeOf(finish('corp', unverified.binding, unverified.query))).toMatch(/^FORBIDDEN: .*not verified your email/);

    idp.signInAs({ sub: `mallory-${run}`, email: `mallory-${run}@evil.example`, email_verified: true });
    const foreign = await atCallback('corp');
    expect(await codeOf(finish('corp', foreign.binding, foreign.query))).toBe(
      'FORBIDDEN: Email addresses at evil.example cannot sign in with this provider.',
    );
  });

  it('refuses a wrong state, a replayed state, another browser and a replayed code (D-41)', async () => {
    idp.signInAs({ sub: `frank-${run}`, email: `frank-${run}@corp.example`, email_verified: true });
    const wrong = await atCallback('corp');
    const tampered = new URLSearchParams(wrong.query);
    tampered.set('state', 'not-the-state');
    expect(await codeOf(finish('corp', wrong.binding, tampered.toString()))).toMatch(/^UNAUTHENTICATED: The answer .* does not belong/);
    // The flow is gone after a wrong state: the genuine answer does not work afterwards either.
    expect(await codeOf(finish('corp', wrong.binding, wrong.query))).toMatch(/^UNAUTHENTICATED: This sign-in was not started/);

    const good = await atCallback('corp');
    expect(await codeOf(finish('corp', undefined, good.query))).toMatch(/^UNAUTHENTICATED: This sign-in was not started/);
    expect(await codeOf(finish('corp', secret(), good.query))).toMatch(/^UNAUTHENTICATED: This sign-in was not started/);
    // Refusals above took nothing of this browser's flow (another binding): it still signs in, once.
    expect(await codeOf(finish('corp', good.binding, good.query))).toBe('OK');
    expect(await codeOf(finish('corp', good.binding, good.query))).toMatch(/^UNAUTHENTICATED: This sign-in was not started/);

    // The used code under a fresh flow's state: the provider refuses it (used, and not this flow's PKCE verifier).
    const fresh = await atCallback('corp');
    const replay = new URLSearchParams(good.query);
    replay.set('state', new URLSearchParams(fresh.query).get('state') as string);
    expect(await codeOf(finish('corp', fresh.binding, replay.toString()))).toMatch(
      /^UNAUTHENTICATED: The sign-in provider refused the sign-in code/,
    );
  });

  it('says when a provider cannot be reached, and an unknown provider is a 404, without a secret in the answer (D-41)', async () => {
    const down = await codeOf(send(StartOidcSignIn, { provider: 'down', bindingSha256: secretSha256(secret()) }));
    expect(down).toMatch(/^UNAVAILABLE: Down SSO cannot be reached right now/);
    expect(down).not.toContain('never-logged-secret');
    expect(await codeOf(send(StartOidcSignIn, { provider: 'nope', bindingSha256: secretSha256(secret()) }))).toMatch(/^NOT_FOUND/);
    // A provider that answers again is discovered again (a failure is not cached).
    expect(await codeOf(send(StartOidcSignIn, { provider: 'corp', bindingSha256: secretSha256(secret()) }))).toBe('OK');
  });
});
