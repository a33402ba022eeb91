import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createHmac, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { SERVICE_NAMES } from '@worktrack/contracts';
import { mainOf, repoRoot, startAppProcess, type AppProcess } from '@worktrack/testing';
import { call, type ErrorBody } from './http';

/**
 * The documented production path, from nothing, as the Kubernetes
 * manifests and the compose file run it: every app built, NODE_ENV=production,
 * real secrets from the environment (none of the development defaults),
 * migrations as their own step (MIGRATE_ON_START=false), the first member and
 * token from the image's bootstrap command, then one request of each kind
 * through the gateway. The Kafka topics exist already (the run's global setup
 * plays the topics Job).
 */
const SERVICES = SERVICE_NAMES;

const b64 = (bytes: number): string => randomBytes(bytes).toString('base64');
const SECRETS = {
  JWT_SECRET: b64(48),
  CURSOR_SECRET: b64(48),
  OPERATOR_TOKEN: b64(48),
  CONNECTOR_SECRET_KEYS: `k1:${b64(32)}`,
  WEBHOOK_SECRET_KEYS: `k1:${b64(32)}`,
  IDENTITY_SECRET_KEYS: `k1:${b64(32)}`,
  SESSION_SIGNING_KEYS: JSON.stringify([
    { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }), kid: 'prod-e2e-1' },
  ]),
};
const PRODUCTION = { ...SECRETS, NODE_ENV: 'production', MIGRATE_ON_START: 'false', LOG_LEVEL: 'info' };

const base64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');
/** An HS256 session JWT (D-11), signed the way an identity provider sharing JWT_SECRET signs it. */
function sessionJwt(claims: Record<string, unknown>, secret: string): string {
  const head = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
  return `${head}.${base64url(createHmac('sha256', secret).update(head).digest())}`;
}

const execFileAsync = promisify(execFile);

/** Runs a built app's one-shot command (migrate, admin, a refused start) with the production environment. */
async function oneShot(
  app: string,
  args: string[],
  env: Record<string, string | undefined> = PRODUCTION,
): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [mainOf(app), ...args], {
      cwd: repoRoot(),
      encoding: 'utf8',
      env: { ...process.env, ...env },
      timeout: 30_000,
    });
    return { status: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string };
    return { status: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('production mode from nothing', () => {
  const apps: AppProcess[] = [];
  let gateway: AppProcess;
  let owner: { workspace_id: string; member_id: string; token: string };

  beforeAll(async () => {
    // 1. Migrations, as their own step (the migration Jobs / compose's migrate-<service>).
    // In parallel, as the Jobs run: each service owns its schema.
    const migrated = await Promise.all(SERVICES.map((service) => oneShot(service, ['migrate'])));
    expect(migrated.map((m, i) => ({ service: SERVICES[i], status: m.status, stderr: m.stderr }))).toEqual(
      SERVICES.map((service) => ({ service, status: 0, stderr: '' })),
    );
    // 2. The first member and token (the bootstrap Job / `docker compose run --rm bootstrap`).
    const workspace = `prod-${randomUUID().slice(0, 8)}`;
    const bootstrap = await oneShot('identity', ['admin', 'create-member', `--workspace=${workspace}`, '--email=Owner@Prod.example']);
    expect({ status: bootstrap.status, stderr: bootstrap.stderr }).toEqual({ status: 0, stderr: '' });
    owner = JSON.parse(bootstrap.stdout.trim()) as typeof owner;
    expect(owner.token).toMatch(/^wt_[a-z2-7]{8}_[A-Za-z0-9]{43}$/);
    // 3. The apps, each its own process, none migrating.
    apps.push(...(await Promise.all(SERVICES.map((s) => startAppProcess(s, PRODUCTION, 45_000)))));
    gateway = await startAppProcess('gateway', PRODUCTION, 45_000);
    apps.push(gateway);
  }, 90_000);

  afterAll(async () => {
    const codes = await Promise.all(apps.map((p) => p.stop()));
    expect(codes).toEqual(apps.map(() => 0));
  });

  it('runs every app in production mode and no log line holds a secret', () => {
    for (const app of apps) {
      const output = app.output();
      for (const [name, value] of Object.entries(SECRETS)) {
        expect([app.app, name, output.includes(value)]).toEqual([app.app, name, false]);
      }
    }
  });

  it('probes: /healthz and /readyz answer without credentials', async () => {
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
  });

  it('operator endpoints: /status crosses every service only with OPERATOR_TOKEN; /metrics likewise', async () => {
    expect((await call(gateway.url, 'GET', '/status')).status).toBe(401);
    expect((await call(gateway.url, 'GET', '/status', { token: 'not-the-operator-token' })).status).toBe(401);
    const status = await call<{ data: { services: Array<{ service: string }> } }>(gateway.url, 'GET', '/status', {
      token: SECRETS.OPERATOR_TOKEN,
    });
    expect(status.status).toBe(200);
    expect(status.body.data.services.map((s) => s.service)).toEqual([...SERVICES]);
    expect((await fetch(`${gateway.url}/metrics`)).status).toBe(401);
    const metrics = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${SECRETS.OPERATOR_TOKEN}` } });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('process_cpu_user_seconds_total');
  });

  it('API, identity: the bootstrap token and a session JWT signed with JWT_SECRET are the owner; anything else is a 401', async () => {
    const me = await call<{ data: { member_id: string; role: string } }>(gateway.url, 'GET', '/v1/me', { token: owner.token });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ member_id: owner.member_id, role: 'owner' });

    const claims = { sub: owner.member_id, wid: owner.workspace_id, exp: Math.floor(Date.now() / 1000) + 300 };
    const jwt = await call<{ data: { member_id: string } }>(gateway.url, 'GET', '/v1/me', {
      token: sessionJwt(claims, SECRETS.JWT_SECRET),
    });
    expect([jwt.status, jwt.body.data?.member_id]).toEqual([200, owner.member_id]);
    // Signed with the development default the apps refuse in production: not accepted.
    const dev = await call<ErrorBody>(gateway.url, 'GET', '/v1/me', {
      token: sessionJwt(claims, 'dev-only-insecure-jwt-secret-change-me'),
    });
    expect([dev.status, dev.body.error.code]).toEqual([401, 'UNAUTHENTICATED']);

    const minted = await call<{ data: { token: string } }>(gateway.url, 'POST', '/v1/tokens', {
      token: owner.token,
      body: { name: 'smoke', scope: 'report_only' },
    });
    expect(minted.status).toBe(201);
    expect((await call(gateway.url, 'GET', '/v1/me', { token: minted.body.data.token })).status).toBe(200);
  });

  it('API, ingestion: an event is accepted and in the timeline (a signed cursor pages it)', async () => {
    const accepted = await call(gateway.url, 'POST', '/v1/activity/events', {
      token: owner.token,
      body: {
        events: [
          { event_type: 'deploy', external_id: 'prod-1' },
          { event_type: 'deploy', external_id: 'prod-2' },
        ],
      },
    });
    expect(accepted.status).toBe(202);
    const page = await call<{ data: unknown[]; meta: { cursor: string | null } }>(gateway.url, 'GET', '/v1/activity/events?limit=1', {
      token: owner.token,
    });
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    expect(typeof page.body.meta.cursor).toBe('string');
    const next = await call<{ data: unknown[] }>(
      gateway.url,
      'GET',
      `/v1/activity/events?limit=1&cursor=${encodeURIComponent(page.body.meta.cursor ?? '')}`,
      { token: owner.token },
    );
    expect([next.status, next.body.data.length]).toEqual([200, 1]);
  });

  it('API, sessions and plate: a session starts; the plate knows the member', async () => {
    const session = await call(gateway.url, 'POST', '/v1/sessions', {
      token: owner.token,
      body: { intent_text: 'Production smoke', source: 'timer' },
    });
    expect(session.status).toBe(201);
    // The member reaches plate through identity.events (the outbox relay): allow for it.
    const deadline = Date.now() + 20_000;
    let plate = await call(gateway.url, 'GET', '/v1/plate', { token: owner.token });
    while (plate.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      plate = await call(gateway.url, 'GET', '/v1/plate', { token: owner.token });
    }
    expect(plate.status).toBe(200);
  });

  it('API, connectors: a connector with a webhook secret is stored (encrypted with CONNECTOR_SECRET_KEYS)', async () => {
    const secret = b64(24);
    const created = await call<{ data: { hook_path: string } }>(gateway.url, 'POST', '/v1/connectors', {
      token: owner.token,
      body: { kind: 'github', name: 'acme/prod', secret },
    });
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain(secret);
    const listed = await call(gateway.url, 'GET', '/v1/connectors', { token: owner.token });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
  });

  it('webhooks: an unsigned delivery to the connector hook is refused at the edge', async () => {
    const res = await fetch(`${gateway.url}/hooks/github/${randomUUID()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'ping', 'x-github-delivery': randomUUID() },
      body: '{}',
    });
    expect([401, 404]).toContain(res.status);
  });

  it('each app refuses to start in production without its secret, naming it and printing no secret value', async () => {
    const cases = [
      ['connectors', 'CONNECTOR_SECRET_KEYS'],
      ['webhooks', 'WEBHOOK_SECRET_KEYS'],
      ['identity', 'IDENTITY_SECRET_KEYS'],
      ['identity', 'SESSION_SIGNING_KEYS'],
      ['gateway', 'OPERATOR_TOKEN'],
      ['gateway', 'JWT_SECRET'],
      ['identity', 'CURSOR_SECRET'],
    ] as const;
    const results = await Promise.all(cases.map(([app, missing]) => oneShot(app, [], { ...PRODUCTION, [missing]: '', HTTP_PORT: '0' })));
    for (const [i, [app, missing]] of cases.entries()) {
      const { status, stdout, stderr } = results[i];
      expect([app, missing, status, stderr.includes(missing)]).toEqual([app, missing, 1, true]);
      for (const value of Object.values(SECRETS)) expect(stdout + stderr).not.toContain(value);
    }
  });
});
