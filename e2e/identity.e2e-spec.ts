import { generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { API_TOKEN_PATTERN } from '@worktrack/contracts';
import { memberWithToken, runCreateMember, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';
import { call, type ErrorBody } from './http';

const JWT_SECRET = `e2e-${randomUUID()}`;
const rsa = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
const run = randomUUID().slice(0, 8);

interface MemberBody {
  member_id: string;
  workspace_id: string;
  kind: string;
  role: string;
  display_name: string;
  email: string | null;
  timezone: string;
  working_hours: Record<string, Array<{ start: string; end: string }>>;
  plate_capacity: number;
}
interface TokenBody {
  token_id: string;
  name: string;
  scope: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  token?: string;
}

/** D-7 … D-14 through HTTP: two gateway replicas (HS256), one RS256 gateway, the real identity service. */
describe('identity and the edge', () => {
  let identity: AppProcess;
  let g1: AppProcess;
  let g2: AppProcess;
  let gRs: AppProcess;
  let alice: MemberWithToken; // owner of workspace A, Europe/Berlin
  let bob: MemberWithToken; // plain member of workspace A
  let carol: MemberWithToken; // owner of workspace B

  beforeAll(async () => {
    identity = await startAppProcess('identity');
    [g1, g2, gRs] = await Promise.all([
      startAppProcess('gateway', { JWT_SECRET }),
      startAppProcess('gateway', { JWT_SECRET }),
      startAppProcess('gateway', { JWT_SECRET, JWT_PUBLIC_KEY: rsa.publicKey }),
    ]);
    alice = memberWithToken({ workspace: `A-${run}`, email: `alice-${run}@example.com`, timezone: 'Europe/Berlin' });
    bob = memberWithToken({ workspace: `A-${run}`, email: `bob-${run}@example.com` });
    carol = memberWithToken({ workspace: `B-${run}`, email: `carol-${run}@example.com`, timezone: 'America/New_York', capacity: 3 });
  });

  afterAll(async () => {
    await Promise.all([g1, g2, gRs, identity].filter(Boolean).map((p) => p.stop()));
  });

  describe('D-14 bootstrap command', () => {
    it('prints one JSON line with workspace, member and a full token; the first member of a workspace is its owner', () => {
      expect(alice.token).toMatch(API_TOKEN_PATTERN);
      expect(alice.workspaceId).toBe(bob.workspaceId);
      expect(carol.workspaceId).not.toBe(alice.workspaceId);
      const again = runCreateMember(['--workspace', `A-${run}`, '--email', `ALICE-${run}@example.com`]);
      expect(again.status).toBe(0);
      const lines = again.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const parsed = JSON.parse(lines[0]) as { workspace_id: string; member_id: string; token: string };
      expect(Object.keys(parsed).sort()).toEqual(['member_id', 'token', 'workspace_id']);
      expect(parsed.member_id).toBe(alice.memberId); // same member (emails are case-insensitive), a new token
      expect(parsed.token).not.toBe(alice.token);
    });

    it('refuses bad arguments with exit 2 and a message naming them', () => {
      const bad = runCreateMember(['--workspace', 'x', '--email', 'not-an-email', '--timezone', 'Mars/Olympus', '--role', 'king']);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(/--email/);
      expect(bad.stderr).toMatch(/--timezone/);
      expect(bad.stderr).toMatch(/--role/);
      expect(bad.stdout).toBe('');
    });
  });

  describe('D-13 GET /v1/me', () => {
    it('returns the member the credential acts as', async () => {
      const res = await call<{ data: MemberBody }>(g1.url, 'GET', '/v1/me', { token: alice.token });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        member_id: alice.memberId,
        workspace_id: alice.workspaceId,
        kind: 'human',
        role: 'owner',
        display_name: `alice-${run}`,
        email: `alice-${run}@example.com`,
        timezone: 'Europe/Berlin',
        working_hours: {
          mon: [{ start: '09:00', end: '17:00' }],
          tue: [{ start: '09:00', end: '17:00' }],
          wed: [{ start: '09:00', end: '17:00' }],
          thu: [{ start: '09:00', end: '17:00' }],
          fri: [{ start: '09:00', end: '17:00' }],
          sat: [],
          sun: [],
        },
        plate_capacity: 6,
      });
      // D-5 on every authenticated response.
      expect(res.headers.get('ratelimit-limit')).toBe('600');
      expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(600);
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
      const b = await call<{ data: MemberBody }>(g2.url, 'GET', '/v1/me', { token: bob.token });
      expect(b.body.data).toMatchObject({ member_id: bob.memberId, role: 'member' });
      const c = await call<{ data: MemberBody }>(g1.url, 'GET', '/v1/me', { token: carol.token });
      expect(c.body.data).toMatchObject({
        member_id: carol.memberId,
        workspace_id: carol.workspaceId,
        timezone: 'America/New_York',
        plate_capacity: 3,
      });
    });

    it.each([
      ['no credential', {}],
      ['a non-bearer scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
      ['a malformed token', { authorization: 'Bearer wt_short_secret' }],
      ['a wrong secret', { authorization: 'Bearer WRONG' }],
      ['an unknown token id', { authorization: `Bearer wt_aaaaaaaa_${'A'.repeat(43)}` }],
    ])('is 401 UNAUTHENTICATED with %s', async (_name, headers) => {
      const h = { ...headers } as Record<string, string>;
      if (h.authorization === 'Bearer WRONG') h.authorization = `Bearer ${alice.token.slice(0, 12)}${'x'.repeat(43)}`;
      const res = await call<ErrorBody>(g1.url, 'GET', '/v1/me', { headers: h });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    });
  });

  describe('D-11 session JWTs', () => {
    const claims = () => ({ sub: alice.memberId, wid: alice.workspaceId });

    it('accepts an HS256 JWT signed with JWT_SECRET', async () => {
      const token = jwt.sign(claims(), JWT_SECRET, { algorithm: 'HS256', expiresIn: 60 });
      const res = await call<{ data: MemberBody }>(g1.url, 'GET', '/v1/me', { token });
      expect(res.status).toBe(200);
      expect(res.body.data.member_id).toBe(alice.memberId);
    });

    it.each([
      ['expired', () => jwt.sign({ ...claims(), exp: Math.floor(Date.now() / 1000) - 60 }, JWT_SECRET, { algorithm: 'HS256' })],
      ['signed with another secret', () => jwt.sign(claims(), 'not-the-secret', { algorithm: 'HS256', expiresIn: 60 })],
      ['without exp', () => jwt.sign(claims(), JWT_SECRET, { algorithm: 'HS256' })],
      [
        'with a tampered payload',
        () => {
          const [h, , s] = jwt.sign(claims(), JWT_SECRET, { algorithm: 'HS256', expiresIn: 60 }).split('.');
          const forged = Buffer.from(
            JSON.stringify({ ...claims(), sub: carol.memberId, exp: Math.floor(Date.now() / 1000) + 60 }),
          ).toString('base64url');
          return `${h}.${forged}.${s}`;
        },
      ],
      ['with alg none', () => jwt.sign(claims(), '', { algorithm: 'none', expiresIn: 60 })],
      [
        'for a member that does not exist',
        () => jwt.sign({ sub: randomUUID(), wid: alice.workspaceId }, JWT_SECRET, { algorithm: 'HS256', expiresIn: 60 }),
      ],
      ['RS256 where HS256 is configured', () => jwt.sign(claims(), rsa.privateKey, { algorithm: 'RS256', expiresIn: 60 })],
    ])('refuses a JWT %s with 401', async (_name, make) => {
      const res = await call<ErrorBody>(g1.url, 'GET', '/v1/me', { token: make() });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    });

    it('uses RS256 when JWT_PUBLIC_KEY is configured', async () => {
      const good = jwt.sign(claims(), rsa.privateKey, { algorithm: 'RS256', expiresIn: 60 });
      expect((await call(gRs.url, 'GET', '/v1/me', { token: good })).status).toBe(200);
      const hs = jwt.sign(claims(), JWT_SECRET, { algorithm: 'HS256', expiresIn: 60 });
      expect((await call(gRs.url, 'GET', '/v1/me', { token: hs })).status).toBe(401);
    });
  });

  describe('D-8 / D-10 API tokens', () => {
    it('creates a token shown once, lists without secrets, revokes idempotently', async () => {
      const created = await call<{ data: TokenBody }>(g1.url, 'POST', '/v1/tokens', {
        token: alice.token,
        body: { name: 'ci', scope: 'report_only' },
      });
      expect(created.status).toBe(201);
      const { token, ...listed } = created.body.data;
      expect(token).toMatch(API_TOKEN_PATTERN);
      expect(token).toContain(`wt_${listed.token_id}_`);
      expect(listed).toMatchObject({ name: 'ci', scope: 'report_only', revoked_at: null });

      const list = await call<{ data: TokenBody[] }>(g1.url, 'GET', '/v1/tokens', { token: alice.token });
      expect(list.status).toBe(200);
      const entry = list.body.data.find((t) => t.token_id === listed.token_id);
      expect(entry).toBeDefined();
      expect(JSON.stringify(list.body)).not.toContain(token!.slice(12));
      expect(Object.keys(entry!).sort()).toEqual(['created_at', 'expires_at', 'last_used_at', 'name', 'revoked_at', 'scope', 'token_id']);

      const revoked = await call<{ data: TokenBody }>(g1.url, 'DELETE', `/v1/tokens/${listed.token_id}`, { token: alice.token });
      expect(revoked.status).toBe(200);
      expect(revoked.body.data.revoked_at).not.toBeNull();
      const again = await call<{ data: TokenBody }>(g1.url, 'DELETE', `/v1/tokens/${listed.token_id}`, { token: alice.token });
      expect(again.body.data.revoked_at).toBe(revoked.body.data.revoked_at);
      expect((await call(g1.url, 'GET', '/v1/me', { token })).status).toBe(401);
    });

    it('refuses a revoked token on every replica within 5 seconds, with no round trip per request before that', async () => {
      const created = await call<{ data: TokenBody }>(g1.url, 'POST', '/v1/tokens', {
        token: alice.token,
        body: { name: 'two-replicas', scope: 'full' },
      });
      const token = created.body.data.token!;
      for (let i = 0; i < 20; i++) {
        expect((await call(g1.url, 'GET', '/v1/me', { token })).status).toBe(200);
        expect((await call(g2.url, 'GET', '/v1/me', { token })).status).toBe(200);
      }
      // 40 requests, 2 verifications: the rest came from each replica's cache.
      const metrics = await (await fetch(`${g2.url}/metrics`)).text();
      expect(Number(/worktrack_api_token_lookups_total\{[^}]*outcome="cache_hit"[^}]*\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(
        19,
      );

      const revokedAt = Date.now();
      expect((await call(g1.url, 'DELETE', `/v1/tokens/${created.body.data.token_id}`, { token: alice.token })).status).toBe(200);
      expect((await call(g1.url, 'GET', '/v1/me', { token })).status).toBe(401); // the revoking replica: at once
      let refusedAfter = -1;
      while (Date.now() - revokedAt < 6_000) {
        if ((await call(g2.url, 'GET', '/v1/me', { token })).status === 401) {
          refusedAfter = Date.now() - revokedAt;
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(refusedAfter).toBeGreaterThanOrEqual(0);
      expect(refusedAfter).toBeLessThan(5_000);
    });

    it('validates bodies and ids', async () => {
      const bad = await call<ErrorBody>(g1.url, 'POST', '/v1/tokens', { token: alice.token, body: { name: '', scope: 'admin', extra: 1 } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('VALIDATION_FAILED');
      expect(bad.body.error.details?.map((d) => d.path).sort()).toEqual(['extra', 'name', 'scope']);
      const badId = await call<ErrorBody>(g1.url, 'DELETE', '/v1/tokens/NOT-AN-ID', { token: alice.token });
      expect(badId.status).toBe(400);
      expect(badId.body.error.details?.[0].path).toBe('token_id');
    });
  });

  describe('D-9 scopes', () => {
    it('lets a report_only token read but not manage tokens or agents (403 FORBIDDEN)', async () => {
      const ro = (
        await call<{ data: TokenBody }>(g1.url, 'POST', '/v1/tokens', { token: alice.token, body: { name: 'ro', scope: 'report_only' } })
      ).body.data.token!;
      expect((await call(g1.url, 'GET', '/v1/me', { token: ro })).status).toBe(200);
      expect((await call(g1.url, 'GET', '/v1/tokens', { token: ro })).status).toBe(200);
      for (const [method, path, body] of [
        ['POST', '/v1/tokens', { name: 'x', scope: 'full' }],
        ['DELETE', '/v1/tokens/aaaaaaaa', undefined],
        ['POST', '/v1/agents', { name: 'bot' }],
      ] as const) {
        const res = await call<ErrorBody>(g1.url, method, path, { token: ro, body });
        expect([path, res.status, res.body.error.code]).toEqual([path, 403, 'FORBIDDEN']);
      }
    });
  });

  describe('D-12 POST /v1/agents', () => {
    it('lets an owner register an agent that copies her timezone and working hours, with a report_only token', async () => {
      const res = await call<{ data: { agent: MemberBody; token: string } }>(g1.url, 'POST', '/v1/agents', {
        token: alice.token,
        body: { name: 'deploy-bot' },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.agent).toMatchObject({
        kind: 'agent',
        role: 'member',
        display_name: 'deploy-bot',
        email: null,
        workspace_id: alice.workspaceId,
        timezone: 'Europe/Berlin',
        plate_capacity: 6,
      });
      expect(res.body.data.token).toMatch(API_TOKEN_PATTERN);
      const me = await call<{ data: MemberBody }>(g2.url, 'GET', '/v1/me', { token: res.body.data.token });
      expect(me.body.data.member_id).toBe(res.body.data.agent.member_id);
      // report_only by default: it cannot mint tokens.
      expect((await call(g1.url, 'POST', '/v1/tokens', { token: res.body.data.token, body: { name: 'x', scope: 'full' } })).status).toBe(
        403,
      );
    });

    it('refuses agents registering agents, plain members, and bad bodies', async () => {
      const fullAgent = await call<{ data: { token: string } }>(g1.url, 'POST', '/v1/agents', {
        token: alice.token,
        body: { name: 'full-bot', scope: 'full' },
      });
      const byAgent = await call<ErrorBody>(g1.url, 'POST', '/v1/agents', { token: fullAgent.body.data.token, body: { name: 'child' } });
      expect([byAgent.status, byAgent.body.error.code, byAgent.body.error.message]).toEqual([
        403,
        'FORBIDDEN',
        'Agents cannot register agents.',
      ]);
      const byMember = await call<ErrorBody>(g1.url, 'POST', '/v1/agents', { token: bob.token, body: { name: 'x' } });
      expect([byMember.status, byMember.body.error.code]).toEqual([403, 'FORBIDDEN']);
      const bad = await call<ErrorBody>(g1.url, 'POST', '/v1/agents', {
        token: alice.token,
        body: { name: 'x'.repeat(201), scope: 'root' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details?.map((d) => d.path).sort()).toEqual(['name', 'scope']);
    });
  });

  describe('D-7 tenancy', () => {
    it('never lets one workspace see or touch another’s tokens', async () => {
      const aliceToken = (
        await call<{ data: TokenBody }>(g1.url, 'POST', '/v1/tokens', { token: alice.token, body: { name: 'private', scope: 'full' } })
      ).body.data;
      const carolList = await call<{ data: TokenBody[] }>(g1.url, 'GET', '/v1/tokens', { token: carol.token });
      expect(carolList.body.data.map((t) => t.token_id)).not.toContain(aliceToken.token_id);
      const steal = await call<ErrorBody>(g1.url, 'DELETE', `/v1/tokens/${aliceToken.token_id}`, { token: carol.token });
      expect([steal.status, steal.body.error.code]).toEqual([404, 'NOT_FOUND']);
      // Same workspace, another member: also a missing token.
      expect((await call(g1.url, 'DELETE', `/v1/tokens/${aliceToken.token_id}`, { token: bob.token })).status).toBe(404);
      expect((await call(g1.url, 'GET', '/v1/me', { token: aliceToken.token })).status).toBe(200);
      // A JWT naming a member of B with A's workspace id is no credential.
      const crossed = jwt.sign({ sub: carol.memberId, wid: alice.workspaceId }, JWT_SECRET, { algorithm: 'HS256', expiresIn: 60 });
      expect((await call(g1.url, 'GET', '/v1/me', { token: crossed })).status).toBe(401);
    });
  });
});
