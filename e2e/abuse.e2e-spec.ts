import { spawn } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { SERVICE_NAMES } from '@worktrack/contracts';
import { memberWithToken, mainOf, repoRoot, runToEnd, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';
import { call, postOversize, type ErrorBody } from './http';

const run = randomUUID().slice(0, 8);
const OPERATOR_TOKEN = `op-${randomBytes(24).toString('hex')}`;
const SECRET = `hook-secret-${randomBytes(12).toString('hex')}`;
const JWT_SECRET = `abuse-${randomBytes(24).toString('hex')}`;
const UNAUTH_LIMIT = 6;
const HOOK_LIMIT = 25 * 1024 * 1024;

/** A random token in the D-8 format that no one was ever issued. */
const randomToken = (): string => {
  const base32 = 'abcdefghijklmnopqrstuvwxyz234567';
  const base62 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const pick = (alphabet: string, n: number): string => Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');
  return `wt_${pick(base32, 8)}_${pick(base62, 43)}`;
};
const sign = (raw: Buffer): string => `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
/**
 * A fresh made-up client address on every call (the gateway trusts one proxy
 * hop here): no two uses share a failure budget. Drawn in sequence, not at
 * random: two random picks from one /24 collided once in CI and a fresh
 * address answered 429.
 */
let nextAddress = 0;
const address = (): string => {
  nextAddress += 1;
  return `198.51.${100 + Math.floor(nextAddress / 250)}.${(nextAddress % 250) + 1}`;
};

/**
 * A GitHub push of exactly `bytes` bytes, built on GitHub's own example
 * (@octokit/webhooks-examples): 2048 commits (GitHub's most per delivery),
 * each with long file lists, the head commit's message padding to the size.
 */
function bigPush(bytes: number, at: string): Buffer {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const examples = require('@octokit/webhooks-examples/api.github.com/index.json') as Array<{
    name: string;
    examples: Array<Record<string, unknown>>;
  }>;
  const base = structuredClone(examples.find((e) => e.name === 'push')!.examples[0]) as Record<string, unknown> & {
    repository: Record<string, unknown>;
  };
  const commits = Array.from({ length: 2048 }, (_, i) => {
    const id = createHmac('sha1', 'ids').update(String(i)).digest('hex');
    const files = (kind: string) => Array.from({ length: 40 }, (_, f) => `src/${kind}/module-${i}/deeply/nested/path/file-${f}.ts`);
    return {
      id,
      tree_id: createHmac('sha1', 'trees').update(String(i)).digest('hex'),
      distinct: i % 2 === 0,
      message: `Commit ${i}: do not store me`,
      timestamp: at,
      url: `https://github.com/Codertocat/Hello-World/commit/${id}`,
      author: { name: 'Codertocat', email: 'codertocat@example.com', username: 'Codertocat' },
      committer: { name: 'Codertocat', email: 'codertocat@example.com', username: 'Codertocat' },
      added: files('added'),
      removed: files('removed'),
      modified: files('modified'),
    };
  });
  const head = { ...commits[commits.length - 1], message: '' };
  const body = { ...base, commits, head_commit: head, repository: { ...base.repository, full_name: `acme/big-${run}` } };
  const without = Buffer.byteLength(JSON.stringify(body));
  if (without > bytes) throw new Error(`push skeleton is ${without} bytes, above ${bytes}`);
  head.message = `do not store me ${'x'.repeat(bytes - without - 'do not store me '.length)}`;
  const raw = Buffer.from(JSON.stringify(body));
  expect(raw.length).toBe(bytes);
  return raw;
}

/**
 * Hostile and odd input and large pushes, over HTTP
 * against the built apps as processes: the per-address limit on
 * unauthenticated failures, webhook signatures verified at the edge, a real
 * 25 MB signed push end to end, no-store answers, the operator credential,
 * credential-free logs and a safe `npm run admin`.
 */
describe('hostile and odd input end to end', () => {
  const apps: AppProcess[] = [];
  let gateway: AppProcess;
  let connectors: AppProcess;
  let member: MemberWithToken;
  /** Every credential this run sent: none may appear in any app's log. */
  const used: string[] = [OPERATOR_TOKEN, SECRET, JWT_SECRET];

  const metric = async (base: string, name: string, labels: string, token?: string): Promise<number> => {
    const text = await (await fetch(`${base}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} })).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && labels.split(',').every((p) => l.includes(p)));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  const connect = async (): Promise<string> => {
    const created = await call<{ data: { hook_path: string } }>(gateway.url, 'POST', '/v1/connectors', {
      token: member.token,
      body: { kind: 'github', name: `acme/api-${randomUUID().slice(0, 6)}`, secret: SECRET },
    });
    expect(created.status).toBe(201);
    return created.body.data.hook_path;
  };

  // This file's own client address (written by the trusted proxy hop): other test files' refused
  // credentials from 127.0.0.1 must not spend this file's budget, nor this file's theirs.
  const CLIENT = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
  const realFetch = globalThis.fetch;

  beforeAll(async () => {
    globalThis.fetch = (input: Parameters<typeof fetch>[0], init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      if (!headers.has('x-forwarded-for')) headers.set('x-forwarded-for', CLIENT);
      return realFetch(input, { ...init, headers });
    };
    // Generous start-up bounds: the machine is shared and noisy.
    // Every service: the operator's GET /status asks each of them.
    for (const app of SERVICE_NAMES.filter((s) => s !== 'connectors')) apps.push(await startAppProcess(app, {}, 120_000));
    connectors = await startAppProcess('connectors', {}, 120_000);
    apps.push(connectors);
    gateway = await startAppProcess(
      'gateway',
      {
        OPERATOR_TOKEN,
        JWT_SECRET,
        UNAUTH_RATE_LIMIT_PER_MINUTE: String(UNAUTH_LIMIT),
        TRUSTED_PROXY_HOPS: '1',
        HOOK_BODY_LIMIT_BYTES: String(HOOK_LIMIT),
        // Every access line, successes included (they are debug): the credential check below reads them all.
        LOG_LEVEL: 'debug',
      },
      120_000,
    );
    apps.push(gateway);
    member = memberWithToken({ workspace: `abuse-${run}`, email: `a-${run}@example.com` });
    used.push(member.token);
  }, 900_000);

  afterAll(async () => {
    globalThis.fetch = realFetch;
    await Promise.all(apps.map((p) => p.stop()));
  });

  it('D-37: 200 bad credentials from one address are refused (401, then 429) without an identity round trip, and a never-used token, a fresh JWT, a signed hook and the operator from that address are all served', async () => {
    const attacker = address();
    const count = (outcome: string) => metric(gateway.url, 'worktrack_api_token_lookups_total', `outcome="${outcome}"`, OPERATOR_TOKEN);
    // A revoked token is one of the bad credentials: once its revocation reached the registry, it costs no round trip.
    const revokedOwner = memberWithToken({ workspace: `abuse-${run}`, email: `r-${run}@example.com` });
    used.push(revokedOwner.token);
    const revokedId = revokedOwner.token.slice(3, 11);
    expect((await call(gateway.url, 'DELETE', `/v1/tokens/${revokedId}`, { token: revokedOwner.token })).status).toBe(200);
    const before = await count('registry_refused');
    for (let i = 0; (await count('registry_refused')) === before; i += 1) {
      expect(i).toBeLessThan(100);
      const res = await call(gateway.url, 'GET', '/v1/me', { token: revokedOwner.token, headers: { 'x-forwarded-for': address() } });
      expect(res.status).toBe(401);
      await new Promise((r) => setTimeout(r, 100));
    }
    const [rejected, refusedByRegistry] = [await count('rejected'), await count('registry_refused')];
    const bad = (i: number): string => {
      switch (i % 5) {
        case 0:
          return `Bearer ${revokedOwner.token}`;
        case 1:
          return `Bearer ${randomToken()}`;
        case 2:
          return `Bearer wt_${member.token.slice(3, 11)}_${randomToken().slice(12)}`; // a known id, a wrong secret
        case 3:
          return `Bearer eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify({ sub: randomUUID() })).toString('base64url')}.forged`;
        default:
          return 'Bearer wt_not-a-token';
      }
    };
    const statuses: number[] = [];
    // In rounds of the limit: each round's failures are recorded when its responses finish.
    for (let round = 0; round < 200 / UNAUTH_LIMIT + 1; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(UNAUTH_LIMIT, 200 - statuses.length) }, async (_, j) => {
          const authorization = bad(statuses.length + j);
          used.push(authorization.slice(7));
          const res = await call<ErrorBody>(gateway.url, 'GET', '/v1/me', { headers: { authorization, 'x-forwarded-for': attacker } });
          if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
          return `${res.status} ${res.body.error.code}`;
        }),
      );
      statuses.push(...answers.map((a) => Number(a.split(' ')[0])));
      for (const answer of answers) expect(['401 UNAUTHENTICATED', '429 RATE_LIMITED']).toContain(answer);
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(statuses).toHaveLength(200);
    expect(statuses.slice(0, UNAUTH_LIMIT).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(-100).every((s) => s === 429)).toBe(true);
    // No identity round trip for any of them: unknown, revoked and wrongly completed tokens are refused by the registry.
    expect((await count('rejected')) - rejected).toBe(0);
    expect((await count('registry_refused')) - refusedByRegistry).toBeGreaterThanOrEqual((200 / 5) * 3 - UNAUTH_LIMIT);

    // From the same address: a valid API token this gateway never saw, minted just now …
    const fresh = memberWithToken({ workspace: `abuse-${run}`, email: `f-${run}@example.com` });
    used.push(fresh.token);
    const unseen = await call<{ data: { member_id: string } }>(gateway.url, 'GET', '/v1/me', {
      token: fresh.token,
      headers: { 'x-forwarded-for': attacker },
    });
    expect([unseen.status, unseen.body.data.member_id]).toEqual([200, fresh.memberId]);
    // … a fresh session JWT (D-11) …
    const token = jwt.sign({ sub: fresh.memberId, wid: fresh.workspaceId }, JWT_SECRET, { algorithm: 'HS256', expiresIn: 60 });
    used.push(token);
    expect((await call(gateway.url, 'GET', '/v1/me', { token, headers: { 'x-forwarded-for': attacker } })).status).toBe(200);
    // … a correctly signed provider delivery …
    const hook = await connect();
    const raw = Buffer.from(JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 }));
    const signed = await fetch(`${gateway.url}${hook}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'ping',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': sign(raw),
        'x-forwarded-for': attacker,
      },
      body: raw,
    });
    expect(signed.status).toBe(202);
    // … the operator's /status and /metrics, and the probes (never limited).
    for (const path of ['/status', '/metrics']) {
      const res = await fetch(`${gateway.url}${path}`, {
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'x-forwarded-for': attacker },
      });
      expect([path, res.status]).toEqual([path, 200]);
    }
    for (const path of ['/healthz', '/readyz']) {
      expect([path, (await fetch(`${gateway.url}${path}`, { headers: { 'x-forwarded-for': attacker } })).status]).toEqual([path, 200]);
    }
    // The guesses from that address are still refused, and a wrong operator credential is a failure like any other.
    const guess = await call<ErrorBody>(gateway.url, 'GET', '/v1/me', { token: randomToken(), headers: { 'x-forwarded-for': attacker } });
    expect(guess.status).toBe(429);
    const wrongOperator = await fetch(`${gateway.url}/status`, { headers: { authorization: 'Bearer nope', 'x-forwarded-for': attacker } });
    expect(wrongOperator.status).toBe(429);
    // Another address is unaffected.
    expect((await call(gateway.url, 'GET', '/v1/me', { token: randomToken(), headers: { 'x-forwarded-for': address() } })).status).toBe(
      401,
    );
  });

  it('D-37: forged hooks count as failures per address (404 then 429), while a correctly signed delivery from that address is accepted', async () => {
    const hookAttacker = address();
    const forged = () =>
      fetch(`${gateway.url}/hooks/github/${randomUUID()}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': hookAttacker },
        body: '{}',
      });
    for (let i = 0; i < UNAUTH_LIMIT; i += 1) expect((await forged()).status).toBe(404);
    await new Promise((r) => setTimeout(r, 200));
    const blocked = await forged();
    expect(blocked.status).toBe(429);
    const hook = await connect();
    const badSignature = await fetch(`${gateway.url}${hook}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'ping',
        'x-hub-signature-256': 'sha256=00',
        'x-forwarded-for': hookAttacker,
      },
      body: '{}',
    });
    expect(badSignature.status).toBe(429);
    const raw = Buffer.from(JSON.stringify({ zen: 'Design for failure.', hook_id: 2 }));
    const good = await fetch(`${gateway.url}${hook}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'ping',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': sign(raw),
        'x-forwarded-for': hookAttacker,
      },
      body: raw,
    });
    expect(good.status).toBe(202);
  });

  it('D-37: a token id no one was issued costs no identity round trip, whatever secret comes with it', async () => {
    const count = (outcome: string) => metric(gateway.url, 'worktrack_api_token_lookups_total', `outcome="${outcome}"`, OPERATOR_TOKEN);
    const [rejected, registry] = [await count('rejected'), await count('registry_refused')];
    // One made-up token id with five different secrets, each from a fresh address (the per-address limit stays out of it).
    const id = randomToken().slice(3, 11);
    for (let i = 0; i < 5; i += 1) {
      const token = `wt_${id}_${randomToken().slice(12)}`;
      used.push(token);
      const res = await call<ErrorBody>(gateway.url, 'GET', '/v1/me', { token, headers: { 'x-forwarded-for': address() } });
      expect([i, res.status, res.body.error.code]).toEqual([i, 401, 'UNAUTHENTICATED']);
    }
    expect([(await count('rejected')) - rejected, (await count('registry_refused')) - registry]).toEqual([0, 5]);
    // The member's own token is not affected.
    expect((await call(gateway.url, 'GET', '/v1/me', { token: member.token })).status).toBe(200);
  });

  it('an unsigned multi-MiB hook body is refused at the edge and never reaches the connectors service', async () => {
    const path = await connect();
    const refused = () => metric(connectors.url, 'worktrack_connector_webhooks_received_total', 'outcome="refused"');
    const before = await refused();
    const raw = Buffer.from(JSON.stringify({ ref: 'refs/heads/main', padding: 'p'.repeat(3 * 1024 * 1024) }));
    for (const signature of [undefined, 'sha256=' + '0'.repeat(64), sign(Buffer.from('something else'))]) {
      const res = await fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'push',
          'x-github-delivery': randomUUID(),
          'x-forwarded-for': address(),
          ...(signature ? { 'x-hub-signature-256': signature } : {}),
        },
        body: raw,
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as ErrorBody).error.code).toBe('UNAUTHENTICATED');
    }
    // The connectors service refuses what reaches it unsigned; nothing did.
    expect((await refused()) - before).toBe(0);
  });

  it('a real 25 MB signed GitHub push is accepted and reaches the timeline with exact counts; above the hook limit is 413; the API keeps its own limit', async () => {
    const path = await connect();
    const raw = bigPush(25_000_000, new Date().toISOString());
    const delivery = randomUUID();
    const started = Date.now();
    const res = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': delivery,
        'x-hub-signature-256': sign(raw),
      },
      body: raw,
    });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(202);
    expect(((await res.json()) as { data: { outcome: string } }).data.outcome).toBe('accepted');
    expect(elapsed).toBeLessThan(10_000); // GitHub's window
    process.stdout.write(`[abuse e2e] 25 MB signed push answered in ${elapsed} ms\n`);

    type Timeline = { data: Array<{ event_type: string; external_id: string | null; payload: Record<string, unknown> }> };
    const deadline = Date.now() + 30_000;
    let event: Timeline['data'][number] | undefined;
    while (!event && Date.now() < deadline) {
      const page = await call<Timeline>(gateway.url, 'GET', '/v1/activity/events?source_type=github', { token: member.token });
      event = page.body.data.find((e) => e.external_id === `${delivery}:0`);
      if (!event) await new Promise((r) => setTimeout(r, 200));
    }
    expect(event).toBeDefined();
    expect(event!.event_type).toBe('push');
    expect(event!.payload).toMatchObject({ repository: `acme/big-${run}`, commit_count: 2048, distinct_commit_count: 1024 });
    const stored = JSON.stringify(event);
    expect(stored).not.toContain('do not store me');
    expect(Buffer.byteLength(stored)).toBeLessThan(64 * 1024);

    // Just above the hook limit: refused before it is read whole (Content-Length), with the D-1 envelope.
    const over = Buffer.alloc(HOOK_LIMIT + 1, 0x20);
    const tooBig = await postOversize(gateway.url, path, over, {
      'x-forwarded-for': CLIENT,
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': sign(over),
    });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    // The API keeps its own limit (6 MiB by default).
    const api = await postOversize(gateway.url, '/v1/activity/events', Buffer.alloc(7 * 1024 * 1024, 0x20), {
      'x-forwarded-for': CLIENT,
      'content-type': 'application/json',
      authorization: `Bearer ${member.token}`,
    });
    expect(api.status).toBe(413);
  });

  it('member data answers carry Cache-Control: no-store, errors included', async () => {
    for (const path of ['/v1/me', '/v1/tokens', '/v1/connectors', '/v1/activity/events']) {
      const res = await call(gateway.url, 'GET', path, { token: member.token });
      expect([path, res.status, res.headers.get('cache-control')]).toEqual([path, 200, 'no-store']);
    }
    const missing = await call<ErrorBody>(gateway.url, 'GET', `/v1/connectors/${randomUUID()}/deliveries`, { token: member.token });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect(missing.headers.get('cache-control')).toBe('no-store');
    // Refused before any handler runs (authentication): still no-store.
    const anonymous = await fetch(`${gateway.url}/v1/me`, { headers: { 'x-forwarded-for': address() } });
    expect([anonymous.status, anonymous.headers.get('cache-control')]).toEqual([401, 'no-store']);
  });

  it('/status and /metrics answer only to the operator credential', async () => {
    for (const path of ['/status', '/metrics']) {
      const anonymous = await fetch(`${gateway.url}${path}`, { headers: { 'x-forwarded-for': address() } });
      expect([path, anonymous.status]).toEqual([path, 401]);
      expect(((await anonymous.json()) as ErrorBody).error.code).toBe('UNAUTHENTICATED');
      // A member's credential is not an operator's.
      const memberTry = await fetch(`${gateway.url}${path}`, {
        headers: { authorization: `Bearer ${member.token}`, 'x-forwarded-for': address() },
      });
      expect([path, memberTry.status]).toEqual([path, 401]);
      const operator = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
      expect([path, operator.status, operator.headers.get('cache-control')]).toEqual([path, 200, 'no-store']);
    }
  });

  it('npm run admin works in parallel under the running system and leaves dist/ alone', async () => {
    const main = mainOf('identity');
    const before = statSync(main).mtimeMs;
    const admin = async (i: number): Promise<{ code: number | null; out: string }> => {
      const { code, stdout, stderr } = await runToEnd(
        spawn(
          process.execPath,
          [
            join(repoRoot(), 'scripts', 'admin.mjs'),
            'create-member',
            '--workspace',
            `abuse-admin-${run}`,
            '--email',
            `p${i}-${run}@example.com`,
          ],
          { cwd: repoRoot(), env: { ...process.env, LOG_LEVEL: 'error' }, stdio: ['ignore', 'pipe', 'pipe'] },
        ),
      );
      return { code, out: stdout + stderr };
    };
    const results = await Promise.all([0, 1, 2].map(admin));
    for (const r of results) {
      expect([r.code, r.out]).toEqual([0, expect.stringContaining('"token"')]);
      used.push((JSON.parse(r.out.trim()) as { token: string }).token);
    }
    expect(statSync(main).mtimeMs).toBe(before);
    // The running system still answers, and each new token works.
    for (const r of results) {
      const token = (JSON.parse(r.out.trim()) as { token: string }).token;
      expect((await call(gateway.url, 'GET', '/v1/me', { token })).status).toBe(200);
    }
  });

  it('calendar feeds on loopback, private, unspecified or metadata addresses are refused by default, and no error echoes what an address answered', async () => {
    // An "internal service" on loopback whose answer must never reach the connector's owner.
    const internal = `internal-${randomBytes(12).toString('hex')}`;
    let hits = 0;
    const server = createServer((_req, res) => {
      hits += 1;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${internal}\nroot:x:0:0:root:/root:/bin/bash\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const REFUSED =
      "feed unavailable: the feed's host is a private, loopback, link-local or metadata address, which calendar feeds may not use";
    try {
      const feeds = [
        `http://127.0.0.1:${port}/feed.ics`, // loopback literal
        `http://localhost:${port}/feed.ics`, // a name that resolves to loopback: checked on the address connected to
        `http://0.0.0.0:${port}/feed.ics`, // unspecified (reaches loopback on Linux)
        `http://[::ffff:127.0.0.1]:${port}/feed.ics`, // IPv4-mapped IPv6 loopback
        `http://169.254.169.254/latest/meta-data/`, // cloud metadata (link-local)
        `http://10.0.0.1:${port}/feed.ics`, // RFC 1918
      ];
      const created: Array<{ feed: string; id: string }> = [];
      for (const feed of feeds) {
        const res = await call<{ data: { connector_id: string } }>(gateway.url, 'POST', '/v1/connectors', {
          token: member.token,
          body: { kind: 'calendar', name: `feed ${created.length}`, feed_url: feed },
        });
        expect([feed, res.status]).toEqual([feed, 201]);
        created.push({ feed, id: res.body.data.connector_id });
      }
      // Each is polled at once (then every poll_interval_seconds): wait for every first poll's outcome.
      type Listed = { connector_id: string; status: string; last_error: string | null; last_polled_at: string | null };
      const deadline = Date.now() + 60_000;
      let listed: Listed[] = [];
      for (;;) {
        listed = [];
        let cursor: string | null = null;
        do {
          const page: { body: { data: Listed[]; meta: { cursor: string | null } } } = await call(
            gateway.url,
            'GET',
            `/v1/connectors?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
            { token: member.token },
          );
          listed.push(...page.body.data);
          cursor = page.body.meta.cursor;
        } while (cursor);
        const ours = created.map(({ id }) => listed.find((c) => c.connector_id === id));
        if (ours.every((c) => c?.last_polled_at) || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 500));
      }
      for (const { feed, id } of created) {
        const connector = listed.find((c) => c.connector_id === id);
        expect({ feed, status: connector?.status, last_error: connector?.last_error }).toEqual({
          feed,
          status: 'unhealthy',
          last_error: REFUSED,
        });
        const log = await call<{ data: Array<{ state: string; detail: string | null }> }>(
          gateway.url,
          'GET',
          `/v1/connectors/${id}/deliveries`,
          { token: member.token },
        );
        expect({ feed, log: log.body.data.map((d) => [d.state, d.detail]) }).toEqual({ feed, log: [['failed', REFUSED]] });
      }
      // Not one request reached the internal service, and nothing it could answer appears anywhere the owner can read.
      expect(hits).toBe(0);
      expect(JSON.stringify(listed)).not.toContain(internal);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('no credential this run used appears in any app’s log (query strings, headers, cookies, config)', async () => {
    const leaky = randomToken();
    used.push(leaky);
    // A token in the query string, in a cookie and in a custom header, on good and bad routes.
    await fetch(`${gateway.url}/v1/me?access_token=${member.token}&limit=1`, { headers: { 'x-forwarded-for': address() } });
    await fetch(`${gateway.url}/v1/nowhere?token=${leaky}`, { headers: { cookie: `session=${leaky}`, 'x-forwarded-for': address() } });
    await fetch(`${gateway.url}/v1/me`, { headers: { authorization: `Bearer ${leaky}`, 'x-forwarded-for': address() } });
    await fetch(`${gateway.url}/metrics?key=${OPERATOR_TOKEN}`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
    await new Promise((r) => setTimeout(r, 500));
    const logs = apps.map((a) => [a.app, a.output()] as const);
    expect(logs.find(([app]) => app === 'gateway')?.[1]).toContain('access_token=[REDACTED]');
    expect(logs.find(([app]) => app === 'gateway')?.[1]).toContain('/metrics?key=[REDACTED]');
    for (const [app, output] of logs) {
      for (const credential of used) {
        if (output.includes(credential)) throw new Error(`${app}'s log holds a credential (${credential.slice(0, 6)}…)`);
      }
    }
  });
});
