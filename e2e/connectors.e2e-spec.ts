import { createHmac, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memberWithToken, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';
import { call, type ErrorBody } from './http';

interface Connector {
  data: { connector_id: string; hook_path: string; credential_token_id: string; status: string };
}
interface Timeline {
  data: Array<{
    event_id: string;
    source_type: string;
    event_type: string;
    external_id: string | null;
    session_id: string | null;
    payload: Record<string, unknown>;
  }>;
}
interface Deliveries {
  data: Array<{ provider_delivery_id: string; state: string; events_accepted: number; events_deduplicated: number }>;
}

const SECRET = 'e2e-webhook-secret';
const run = randomUUID().slice(0, 8);

/** A push delivery shaped like GitHub's (trimmed), with a commit message that must never be stored (D-36). */
const pushBody = (at: string): Buffer =>
  Buffer.from(
    JSON.stringify({
      ref: 'refs/heads/main',
      before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
      after: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
      created: false,
      deleted: false,
      forced: false,
      compare: 'https://github.com/acme/api/compare/6113728f27ae...0d1a26e67d8f',
      commits: [
        { id: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c', message: 'Fix the flaky test (do not store me)', timestamp: at, distinct: true },
      ],
      head_commit: { id: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c', message: 'Fix the flaky test (do not store me)', timestamp: at },
      repository: {
        id: 1296269,
        full_name: 'acme/api',
        name: 'api',
        html_url: 'https://github.com/acme/api',
        pushed_at: Math.floor(Date.parse(at) / 1000),
      },
      pusher: { name: 'octo-dev', email: 'octo-dev@example.com' },
      sender: { login: 'octo-dev', id: 583231, type: 'User' },
    }),
  );
const sign = (raw: Buffer | string): string => `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;

/**
 * D-36 through HTTP and every app as a process: a member connects GitHub,
 * GitHub delivers a signed push to the gateway's hook, and the event reaches
 * the member's timeline — written through the ingestion path as the member's
 * report_only connector token — and is linked to their running session.
 */
describe('connectors end to end', () => {
  const apps: AppProcess[] = [];
  let gateway: AppProcess;
  let member: MemberWithToken;

  const hook = (path: string, raw: Buffer | string, headers: Record<string, string>) =>
    fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
  const eventually = async (check: () => Promise<boolean>, what: string): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    apps.push(...(await Promise.all(['identity', 'ingestion', 'sessions', 'correlation', 'connectors'].map((a) => startAppProcess(a)))));
    gateway = await startAppProcess('gateway');
    apps.push(gateway);
    member = memberWithToken({ workspace: `conn-${run}`, email: `c-${run}@example.com` });
  });

  afterAll(async () => {
    await Promise.all(apps.map((p) => p.stop()));
  });

  it('a signed GitHub push reaches the timeline, linked to the running session; a redelivery is stored once', async () => {
    const session = await call<{ data: { session_id: string; started_at: string } }>(gateway.url, 'POST', '/v1/sessions', {
      token: member.token,
      body: { intent_text: 'Ship the connector', source: 'timer' },
    });
    expect(session.status).toBe(201);
    const created = await call<Connector>(gateway.url, 'POST', '/v1/connectors', {
      token: member.token,
      body: { kind: 'github', name: 'acme/api', secret: SECRET },
    });
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain(SECRET);
    const { hook_path: path, connector_id: connectorId, credential_token_id: tokenId } = created.body.data;
    expect(path).toBe(`/hooks/github/${connectorId}`);

    const tokens = await call<{ data: Array<{ token_id: string; scope: string }> }>(gateway.url, 'GET', '/v1/tokens', {
      token: member.token,
    });
    expect(tokens.body.data.find((t) => t.token_id === tokenId)?.scope).toBe('report_only');

    // A push is timed by repository.pushed_at, whole seconds (as GitHub sends it): push in the next second after the start.
    await new Promise((r) => setTimeout(r, 1_100));
    const raw = pushBody(new Date().toISOString());
    const delivery = randomUUID();
    const headers = { 'x-github-event': 'push', 'x-github-delivery': delivery, 'x-hub-signature-256': sign(raw) };
    const started = Date.now();
    const res = await hook(path, raw, headers);
    expect(res.status).toBe(202);
    expect(Date.now() - started).toBeLessThan(10_000); // GitHub's window; in practice milliseconds
    expect(((await res.json()) as { data: { outcome: string } }).data.outcome).toBe('accepted');

    const linked = async (): Promise<Timeline['data']> =>
      (await call<Timeline>(gateway.url, 'GET', '/v1/activity/events?source_type=github', { token: member.token })).body.data;
    await eventually(
      async () => (await linked()).some((e) => e.session_id === session.body.data.session_id),
      'the push linked to the session',
    );
    const [event] = await linked();
    expect(event).toMatchObject({ event_type: 'push', external_id: `${delivery}:0`, session_id: session.body.data.session_id });
    expect(event.payload).toMatchObject({ repository: 'acme/api', commit_count: 1 });
    expect(JSON.stringify(event.payload)).not.toContain('do not store me');

    expect((await hook(path, raw, headers)).status).toBe(202); // GitHub's "Redeliver"
    const log = async () =>
      (await call<Deliveries>(gateway.url, 'GET', `/v1/connectors/${connectorId}/deliveries`, { token: member.token })).body.data;
    await eventually(
      async () => (await log()).every((d) => d.state === 'ingested') && (await log()).length === 2,
      'both deliveries processed',
    );
    expect((await log()).map((d) => [d.events_accepted, d.events_deduplicated])).toEqual([
      [0, 1],
      [1, 0],
    ]);
    expect(await linked()).toHaveLength(1);
  });

  it('refuses a bad signature with 401 and stores nothing; an unknown hook is 404', async () => {
    const created = await call<Connector>(gateway.url, 'POST', '/v1/connectors', {
      token: member.token,
      body: { kind: 'github', name: 'acme/web', secret: SECRET },
    });
    const raw = pushBody(new Date().toISOString());
    const bad = await hook(created.body.data.hook_path, raw, {
      'x-github-event': 'push',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': sign(Buffer.concat([raw, Buffer.from(' ')])),
    });
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as ErrorBody).error.code).toBe('UNAUTHENTICATED');
    const log = await call<Deliveries>(gateway.url, 'GET', `/v1/connectors/${created.body.data.connector_id}/deliveries`, {
      token: member.token,
    });
    expect(log.body.data).toEqual([]);
    expect((await hook(`/hooks/github/${randomUUID()}`, raw, { 'x-hub-signature-256': sign(raw) })).status).toBe(404);
  });

  it('accepts GitHub form-encoded deliveries on hooks, while the API keeps refusing forms (415)', async () => {
    const created = await call<Connector>(gateway.url, 'POST', '/v1/connectors', {
      token: member.token,
      body: { kind: 'github', name: 'acme/form', secret: SECRET },
    });
    const form = `payload=${encodeURIComponent(pushBody(new Date().toISOString()).toString('utf8'))}`;
    const res = await fetch(`${gateway.url}${created.body.data.hook_path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-github-event': 'push',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': sign(form),
      },
      body: form,
    });
    expect(res.status).toBe(202);
    const api = await fetch(`${gateway.url}/v1/activity/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${member.token}` },
      body: 'event_type=x',
    });
    expect(api.status).toBe(415);
  });

  it('needs a full credential to connect, and disconnecting revokes the token and closes the hook', async () => {
    const reportOnly = await call<{ data: { token: string } }>(gateway.url, 'POST', '/v1/tokens', {
      token: member.token,
      body: { name: 'agent', scope: 'report_only' },
    });
    const refused = await call<ErrorBody>(gateway.url, 'POST', '/v1/connectors', {
      token: reportOnly.body.data.token,
      body: { kind: 'github', name: 'x', secret: SECRET },
    });
    expect(refused.status).toBe(403);

    const created = await call<Connector>(gateway.url, 'POST', '/v1/connectors', {
      token: member.token,
      body: { kind: 'github', name: 'acme/old', secret: SECRET },
    });
    const removed = await call(gateway.url, 'DELETE', `/v1/connectors/${created.body.data.connector_id}`, { token: member.token });
    expect(removed.status).toBe(200);
    const tokens = await call<{ data: Array<{ token_id: string; revoked_at: string | null }> }>(gateway.url, 'GET', '/v1/tokens', {
      token: member.token,
    });
    expect(tokens.body.data.find((t) => t.token_id === created.body.data.credential_token_id)?.revoked_at).not.toBeNull();
    const raw = pushBody(new Date().toISOString());
    const res = await hook(created.body.data.hook_path, raw, {
      'x-github-event': 'push',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': sign(raw),
    });
    expect(res.status).toBe(404);
    const listed = await call<{ data: unknown[] }>(gateway.url, 'GET', '/v1/connectors', { token: member.token });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.data.connector_id);
  });

  it('answers 200 over HTTP to every Slack documented example, ignored ones too; only the mapped ones reach the timeline', async () => {
    // Slack retries, then disables, an app whose Request URL answers a signed, well-formed delivery with anything but 2xx.
    const dir = join(__dirname, '..', 'apps', 'connectors', 'test', 'fixtures', 'slack', 'docs');
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Record<string, { kind: string }>;
    const created = await call<Connector>(gateway.url, 'POST', '/v1/connectors', {
      token: member.token,
      body: { kind: 'slack', name: 'acme-workspace', secret: SECRET },
    });
    expect(created.status).toBe(201);
    const path = created.body.data.hook_path;
    expect(path).toBe(`/hooks/slack/${created.body.data.connector_id}`);

    const outcomes: Record<string, string> = {};
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'expected.json')) {
      const example = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
      const raw = JSON.stringify(example.type === 'event_callback' ? { ...example, event_id: `Ev${randomUUID()}` } : example);
      const ts = String(Math.floor(Date.now() / 1000));
      const signature = `v0=${createHmac('sha256', SECRET).update(`v0:${ts}:${raw}`).digest('hex')}`;
      const res = await hook(path, raw, { 'x-slack-request-timestamp': ts, 'x-slack-signature': signature });
      const body = (await res.json()) as { data?: { outcome: string }; challenge?: string };
      expect([file, res.status]).toEqual([file, 200]);
      outcomes[file.replace(/\.json$/, '')] = body.challenge !== undefined ? 'url_verification' : (body.data?.outcome ?? 'none');
    }
    const want = Object.fromEntries(Object.entries(expected).map(([name, { kind }]) => [name, kind === 'mapped' ? 'accepted' : kind]));
    expect(outcomes).toEqual(want);

    const mapped = Object.values(want).filter((o) => o === 'accepted').length;
    const slackEvents = async (): Promise<Timeline['data']> =>
      (await call<Timeline>(gateway.url, 'GET', '/v1/activity/events?source_type=slack&limit=100', { token: member.token })).body.data;
    await eventually(async () => (await slackEvents()).length >= mapped, `${mapped} slack events on the timeline`);
    const stored = await slackEvents();
    expect(stored).toHaveLength(mapped);
    expect(stored.every((e) => typeof e.payload.user === 'string')).toBe(true); // never a message by nobody
  });
});
