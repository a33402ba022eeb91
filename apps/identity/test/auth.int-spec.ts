import { randomBytes, randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { DataSource } from 'typeorm';
import {
  AcceptInvite,
  ChangePassword,
  CheckBrowserSession,
  CreateInvite,
  EndBrowserSession,
  GetSigningKeys,
  ListBrowserSessions,
  ListInvites,
  passwordDigest,
  RefreshBrowserSession,
  secretSha256,
  SignIn,
  SignOut,
  WithdrawInvite,
  VerifyToken,
  parseApiToken,
  type ActorV1,
  type CommandContract,
  type SignedInV1,
} from '@worktrack/contracts';
import { CommandClient, DomainError, startService } from '@worktrack/platform';
import { testConfig, testKafka, type TestKafka } from '@worktrack/testing';
import { IdentityAppModule } from '../src/app.module';
import { IdentityConfig } from '../src/identity.config';
import { DEFAULT_PLATE_CAPACITY, DEFAULT_WORKING_HOURS } from '../src/members/member.mapper';
import { IdentityMembersRepository } from '../src/members/members.repository';
import { InvitesService, OPERATOR_INVITER } from '../src/auth/invites.service';
import { TokensService } from '../src/tokens/tokens.service';

const PUBLIC_URL = 'https://app.worktrack.test';
const secret = (): string => randomBytes(32).toString('base64url');

/** Passwords, browser sessions, invites and the session JWT (D-38 … D-40) through identity's real command topic. */
describe('identity: people’s access (D-38 … D-40)', () => {
  let app: NestFastifyApplication;
  let kafka: TestKafka;
  let rpc: CommandClient;
  let dataSource: DataSource;
  const run = randomUUID().slice(0, 8);

  /** A workspace with an owner who has no password yet, and the owner's first sign-in through an operator's invite link. */
  const ownerSignedIn = async (email: string, password: string): Promise<{ signedIn: SignedInV1; refresh: string }> => {
    const members = app.get(IdentityMembersRepository);
    const invites = app.get(InvitesService);
    const link = secret();
    await members.transaction(async (manager) => {
      const workspace = await members.upsertWorkspace(manager, randomUUID(), `ws-${email}`);
      await members.insertMember(manager, {
        id: randomUUID(),
        workspaceId: workspace.id,
        kind: 'human',
        role: 'owner',
        displayName: 'Owner',
        email,
        timezone: 'UTC',
        workingHours: DEFAULT_WORKING_HOURS,
        plateCapacity: DEFAULT_PLATE_CAPACITY,
        createdBy: null,
      });
      await invites.issue(manager, {
        workspaceId: workspace.id,
        email,
        role: 'owner',
        invitedBy: OPERATOR_INVITER,
        hours: 1,
        secretSha256: secretSha256(link),
        allowExistingWithoutPassword: true,
      });
    });
    const refresh = secret();
    const signedIn = await send(
      AcceptInvite,
      { secretSha256: secretSha256(link), passwordDigest: passwordDigest(password), refreshSha256: secretSha256(refresh) },
      { key: email },
    );
    return { signedIn, refresh };
  };

  const send = <T extends object, R extends object>(contract: CommandContract<T, R>, payload: T, opts = { key: 'auth' }): Promise<R> =>
    rpc.send(contract, payload, opts);

  const actorOf = (s: SignedInV1): ActorV1 => ({
    memberId: s.member.memberId,
    workspaceId: s.member.workspaceId,
    scope: 'full',
    credential: 'jwt',
    sid: s.sid,
  });

  const signIn = (email: string, password: string, address = '192.0.2.1', refresh = secret()) =>
    send(
      SignIn,
      { email, passwordDigest: passwordDigest(password), address, refreshSha256: secretSha256(refresh), userAgent: 'jest' },
      { key: email },
    );

  const codeOf = (p: Promise<unknown>): Promise<string> =>
    p.then(
      () => 'OK',
      (err: unknown) => (err instanceof DomainError ? err.code : String(err)),
    );

  beforeAll(async () => {
    app = await startService(
      'identity',
      IdentityAppModule,
      testConfig(IdentityConfig, { PUBLIC_URL, ARGON2_MEMORY_KIB: '8192', ARGON2_PASSES: '1' }),
    );
    kafka = testKafka('identity-auth-it');
    rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 10_000 });
    await rpc.start();
    dataSource = app.get(DataSource);
  });

  afterAll(async () => {
    await rpc?.stop();
    await kafka?.close();
    await app?.close();
  });

  it('signs a short ES256 session JWT with kid, iss, aud, sub, wid, sid, iat, exp, amr, verifiable with the published keys (D-40)', async () => {
    const { signedIn } = await ownerSignedIn(`jwt-${run}@example.com`, 'correct horse battery');
    const { keys, issuer } = await send(GetSigningKeys, { reason: 'test' });
    expect(issuer).toBe(PUBLIC_URL);
    expect(keys.length).toBeGreaterThanOrEqual(1);
    for (const k of keys) expect(Object.keys(k).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']); // no private part
    const header = decodeProtectedHeader(signedIn.accessToken);
    expect(header).toMatchObject({ alg: 'ES256', kid: keys[0].kid });
    const { payload } = await jwtVerify(signedIn.accessToken, createLocalJWKSet({ keys }), {
      issuer: PUBLIC_URL,
      audience: `${PUBLIC_URL}/v1`,
      algorithms: ['ES256'],
    });
    expect(payload).toMatchObject({ sub: signedIn.member.memberId, wid: signedIn.member.workspaceId, sid: signedIn.sid, amr: ['pwd'] });
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(600);
    expect(signedIn.expiresIn).toBeLessThanOrEqual(600);
    await expect(
      jwtVerify(signedIn.accessToken, createLocalJWKSet({ keys }), { issuer: PUBLIC_URL, audience: 'https://elsewhere.example/v1' }),
    ).rejects.toThrow();
  });

  it('signs in with the password; unknown email and wrong password get the same answer in about the same time (D-39)', async () => {
    const email = `pwd-${run}@example.com`;
    await ownerSignedIn(email, 'a long enough password');
    const ok = await signIn(email, 'a long enough password');
    expect(ok.member.email).toBe(email);
    expect(await codeOf(signIn(email.toUpperCase(), 'a long enough password'))).toBe('OK'); // emails compare case-insensitively

    const time = async (p: () => Promise<unknown>): Promise<number> => {
      const t = process.hrtime.bigint();
      await p().catch(() => undefined);
      return Number(process.hrtime.bigint() - t) / 1e6;
    };
    const wrong: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 6; i++) {
      wrong.push(await time(() => signIn(email, 'not the password!', `198.51.100.${i}`)));
      unknown.push(await time(() => signIn(`nobody-${run}@example.com`, 'not the password!', `198.51.100.${i}`)));
    }
    expect(await codeOf(signIn(email, 'not the password!', '203.0.113.9'))).toBe('INVALID_CREDENTIALS');
    expect(await codeOf(signIn(`nobody-${run}@example.com`, 'whatever whatever', '203.0.113.9'))).toBe('INVALID_CREDENTIALS');
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    // Both run one argon2id verification (cheap in tests, so noise weighs): the medians stay within a factor of three.
    expect(median(unknown) / median(wrong)).toBeGreaterThan(1 / 3);
    expect(median(unknown) / median(wrong)).toBeLessThan(3);
  });

  it('refuses the sixth try of an (email, address) pair only: the same person signs in from another address (D-39)', async () => {
    const email = `limit-${run}@example.com`;
    await ownerSignedIn(email, 'the right password');
    for (let i = 0; i < 5; i++) expect(await codeOf(signIn(email, 'the wrong password', '192.0.2.50'))).toBe('INVALID_CREDENTIALS');
    expect(await codeOf(signIn(email, 'the right password', '192.0.2.50'))).toBe('RATE_LIMITED');
    expect(await codeOf(signIn(email, 'the right password', '192.0.2.51'))).toBe('OK');
    expect(await codeOf(signIn(`other-${email}`, 'the wrong password', '192.0.2.50'))).toBe('INVALID_CREDENTIALS');
  });

  it('rotates the refresh secret; a rotated-out secret ends the session, and two racing refreshes get no grace (D-40)', async () => {
    const email = `refresh-${run}@example.com`;
    const { signedIn, refresh: first } = await ownerSignedIn(email, 'refresh me please');
    const second = secret();
    const renewed = await send(RefreshBrowserSession, { presentedSha256: secretSha256(first), refreshSha256: secretSha256(second) });
    expect(renewed.sid).toBe(signedIn.sid);
    expect(renewed.accessToken).not.toBe(signedIn.accessToken);
    expect(await send(CheckBrowserSession, { sid: signedIn.sid })).toMatchObject({ active: true, twoFactorRequired: false });

    // The first secret again: reuse. The session ends, and the current secret stops working too.
    expect(await codeOf(send(RefreshBrowserSession, { presentedSha256: secretSha256(first), refreshSha256: secretSha256(secret()) }))).toBe(
      'UNAUTHENTICATED',
    );
    expect(await send(CheckBrowserSession, { sid: signedIn.sid })).toMatchObject({ active: false });
    expect(
      await codeOf(send(RefreshBrowserSession, { presentedSha256: secretSha256(second), refreshSha256: secretSha256(secret()) })),
    ).toBe('UNAUTHENTICATED');

    // A race: the same secret twice at once — one wins, the other is reuse and ends the session.
    const racing = await signIn(email, 'refresh me please', '192.0.2.7', 'race-secret-' + run);
    const outcomes = await Promise.all(
      [0, 1].map(() =>
        codeOf(send(RefreshBrowserSession, { presentedSha256: secretSha256('race-secret-' + run), refreshSha256: secretSha256(secret()) })),
      ),
    );
    expect(outcomes.sort()).toEqual(['OK', 'UNAUTHENTICATED']);
    expect(await send(CheckBrowserSession, { sid: racing.sid })).toMatchObject({ active: false });
  });

  it('refuses a refresh of an expired session or of a deactivated member, and a refresh extends the session it renews (D-40)', async () => {
    const email = `idle-${run}@example.com`;
    const { signedIn, refresh: first } = await ownerSignedIn(email, 'keep me signed in');
    await dataSource.query(
      `UPDATE identity.browser_sessions SET expires_at = now() + interval '1 minute', user_agent = 'first' WHERE id = $1`,
      [signedIn.sid],
    );
    const second = secret();
    await send(RefreshBrowserSession, { presentedSha256: secretSha256(first), refreshSha256: secretSha256(second) });
    const [renewed] = await dataSource.query<Array<{ days: number; user_agent: string }>>(
      `SELECT extract(epoch FROM expires_at - now()) / 86400 AS days, user_agent FROM identity.browser_sessions WHERE id = $1`,
      [signedIn.sid],
    );
    expect(Number(renewed.days)).toBeGreaterThan(1); // REFRESH_IDLE_DAYS from now, not the minute it had left
    expect(renewed.user_agent).toBe('first'); // a refresh without a user agent keeps the one it had

    // Expired: refused, and the presented secret is not rotated (nothing changes).
    await dataSource.query(`UPDATE identity.browser_sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [signedIn.sid]);
    expect(
      await codeOf(send(RefreshBrowserSession, { presentedSha256: secretSha256(second), refreshSha256: secretSha256(secret()) })),
    ).toBe('UNAUTHENTICATED');
    const [kept] = await dataSource.query<Array<{ rotated_at: Date | null }>>(
      `SELECT rotated_at FROM identity.refresh_secrets WHERE secret_hash = decode($1, 'hex')`,
      [secretSha256(second)],
    );
    expect(kept.rotated_at).toBeNull();

    // A deactivated member's live session: refused.
    const other = secret();
    const live = await signIn(email, 'keep me signed in', '192.0.2.9', other);
    await dataSource.query(
      `UPDATE identity.members SET deactivated_at = now() WHERE id = (SELECT member_id FROM identity.browser_sessions WHERE id = $1)`,
      [live.sid],
    );
    expect(await codeOf(send(RefreshBrowserSession, { presentedSha256: secretSha256(other), refreshSha256: secretSha256(secret()) }))).toBe(
      'UNAUTHENTICATED',
    );
  });

  it('lists, ends one and logs out; another member’s session is a missing one (D-40)', async () => {
    const email = `list-${run}@example.com`;
    const { signedIn: a } = await ownerSignedIn(email, 'list my sessions');
    const logoutSecret = secret();
    const b = await signIn(email, 'list my sessions', '192.0.2.8', logoutSecret);
    const c = await signIn(email, 'list my sessions', '192.0.2.8');
    const listed = await send(ListBrowserSessions, { actor: actorOf(a) });
    expect(listed.sessions.map((s) => s.sid).sort()).toEqual([a.sid, b.sid, c.sid].sort());
    expect(listed.sessions.find((s) => s.sid === a.sid)).toMatchObject({ current: true });
    expect(listed.sessions.find((s) => s.sid === b.sid)).toMatchObject({ current: false, userAgent: 'jest' });

    const { signedIn: stranger } = await ownerSignedIn(`stranger-${run}@example.com`, 'a stranger here');
    expect(await codeOf(send(EndBrowserSession, { actor: actorOf(stranger), sid: c.sid }))).toBe('NOT_FOUND');
    expect((await send(EndBrowserSession, { actor: actorOf(a), sid: c.sid })).sid).toBe(c.sid);
    expect(await send(SignOut, { presentedSha256: secretSha256(logoutSecret) })).toEqual({ ended: true, sid: b.sid });
    expect(await send(SignOut, { presentedSha256: secretSha256(logoutSecret) })).toEqual({ ended: false });
    const after = await send(ListBrowserSessions, { actor: actorOf(a) });
    expect(after.sessions.map((s) => s.sid)).toEqual([a.sid]);
  });

  it('changes the password and ends the member’s other browser sessions, keeping this one (D-39)', async () => {
    const email = `change-${run}@example.com`;
    const { signedIn: here } = await ownerSignedIn(email, 'the old password');
    const there = await signIn(email, 'the old password');
    expect(
      await codeOf(
        send(ChangePassword, {
          actor: actorOf(here),
          currentDigest: passwordDigest('not the old one'),
          newDigest: passwordDigest('x'.repeat(12)),
        }),
      ),
    ).toBe('VALIDATION_FAILED');
    const changed = await send(ChangePassword, {
      actor: actorOf(here),
      currentDigest: passwordDigest('the old password'),
      newDigest: passwordDigest('the new password'),
    });
    expect(changed.endedSessions).toBe(1);
    expect(await send(CheckBrowserSession, { sid: there.sid })).toMatchObject({ active: false });
    expect(await send(CheckBrowserSession, { sid: here.sid })).toMatchObject({ active: true });
    expect(await codeOf(signIn(email, 'the old password', '192.0.2.60'))).toBe('INVALID_CREDENTIALS');
    expect(await codeOf(signIn(email, 'the new password', '192.0.2.60'))).toBe('OK');
  });

  it('invites by email: owners and admins only, once, before expiry; an active member is MEMBER_EXISTS (D-38)', async () => {
    const ownerEmail = `inviter-${run}@example.com`;
    const { signedIn: owner } = await ownerSignedIn(ownerEmail, 'owner password!');
    const link = secret();
    const invite = await send(CreateInvite, {
      actor: actorOf(owner),
      email: `New-${run}@Example.com`,
      role: 'admin',
      secretSha256: secretSha256(link),
    });
    expect(invite).toMatchObject({ email: `new-${run}@example.com`, role: 'admin', invitedBy: owner.member.memberId });
    expect(Date.parse(invite.expiresAt) - Date.now()).toBeGreaterThan(71 * 3_600_000);
    expect(
      await codeOf(send(CreateInvite, { actor: actorOf(owner), email: ownerEmail.toUpperCase(), secretSha256: secretSha256(secret()) })),
    ).toBe('MEMBER_EXISTS');
    expect((await send(ListInvites, { actor: actorOf(owner) })).invites.map((i) => i.inviteId)).toEqual([invite.inviteId]);

    const accepted = await send(AcceptInvite, {
      secretSha256: secretSha256(link),
      passwordDigest: passwordDigest('new admin password'),
      refreshSha256: secretSha256(secret()),
      displayName: 'New Admin',
      timezone: 'Europe/Paris',
    });
    expect(accepted.member).toMatchObject({
      workspaceId: owner.member.workspaceId,
      role: 'admin',
      displayName: 'New Admin',
      timezone: 'Europe/Paris',
    });
    const again = send(AcceptInvite, {
      secretSha256: secretSha256(link),
      passwordDigest: passwordDigest('y'.repeat(12)),
      refreshSha256: secretSha256(secret()),
    });
    expect(await codeOf(again)).toBe('INVALID_CREDENTIALS');
    expect((await send(ListInvites, { actor: actorOf(owner) })).invites).toEqual([]);

    // An admin invites members and admins, not owners; a plain member invites nobody.
    const admin = actorOf(accepted);
    expect(
      await codeOf(
        send(CreateInvite, { actor: admin, email: `o-${run}@example.com`, role: 'owner', secretSha256: secretSha256(secret()) }),
      ),
    ).toBe('FORBIDDEN');
    const memberLink = secret();
    await send(CreateInvite, { actor: admin, email: `m-${run}@example.com`, secretSha256: secretSha256(memberLink) });
    const plain = await send(AcceptInvite, {
      secretSha256: secretSha256(memberLink),
      passwordDigest: passwordDigest('plain member pw'),
      refreshSha256: secretSha256(secret()),
    });
    expect(plain.member.role).toBe('member');
    expect(await codeOf(send(ListInvites, { actor: actorOf(plain) }))).toBe('FORBIDDEN');

    // Withdrawn and expired links do not work.
    const withdrawnLink = secret();
    const withdrawn = await send(CreateInvite, {
      actor: admin,
      email: `w-${run}@example.com`,
      secretSha256: secretSha256(withdrawnLink),
    });
    await send(WithdrawInvite, { actor: admin, inviteId: withdrawn.inviteId });
    expect(await codeOf(send(WithdrawInvite, { actor: actorOf(plain), inviteId: withdrawn.inviteId }))).toBe('FORBIDDEN');
    const expiredLink = secret();
    const expired = await send(CreateInvite, {
      actor: admin,
      email: `e-${run}@example.com`,
      expiresInHours: 1,
      secretSha256: secretSha256(expiredLink),
    });
    await dataSource.query(`UPDATE identity.invites SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.inviteId]);
    for (const l of [withdrawnLink, expiredLink]) {
      expect(
        await codeOf(
          send(AcceptInvite, {
            secretSha256: secretSha256(l),
            passwordDigest: passwordDigest('z'.repeat(12)),
            refreshSha256: secretSha256(secret()),
          }),
        ),
      ).toBe('INVALID_CREDENTIALS');
    }
  });

  it('refuses an expired API token like a revoked one (D-43)', async () => {
    const { signedIn } = await ownerSignedIn(`expiry-${run}@example.com`, 'token owner password');
    const created = await app.get(TokensService).create(actorOf(signedIn), 'expiring', 'full', 1);
    expect(Date.parse(created.expiresAt!) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    const parsed = parseApiToken(created.token)!;
    const verify = () => send(VerifyToken, { tokenId: parsed.tokenId, secretSha256: secretSha256(parsed.secret) });
    expect((await verify()).actor.tokenId).toBe(parsed.tokenId);
    await dataSource.query(`UPDATE identity.api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [parsed.tokenId]);
    expect(await codeOf(verify())).toBe('UNAUTHENTICATED');
  });

  it('stores no secret: passwords only as argon2id, refresh and invite secrets only as SHA-256 (D-38 … D-40)', async () => {
    const rows = await dataSource.query<Array<{ password_hash: string }>>(`SELECT password_hash FROM identity.credentials`);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.password_hash).toMatch(/^\$argon2id\$v=19\$m=\d+,p=1,t=\d+\$/);
    const [{ n }] = await dataSource.query<Array<{ n: string }>>(
      `SELECT count(*) AS n FROM identity.refresh_secrets WHERE length(secret_hash) <> 32`,
    );
    expect(n).toBe('0');
    const keys = await dataSource.query<Array<{ private_jwk: string }>>(`SELECT private_jwk FROM identity.signing_keys`);
    for (const k of keys) expect(k.private_jwk).toMatch(/^v1\.dev\./); // sealed
  });
});
