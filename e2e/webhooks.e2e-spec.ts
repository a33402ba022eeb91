import { randomUUID } from 'node:crypto';
import { memberWithToken, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';
import { call, type ErrorBody } from './http';

interface Endpoint {
  data: { endpoint_id: string; url: string; event_types: string[]; enabled: boolean; disabled_reason: string | null; secret?: string };
}
interface Attempts {
  data: Array<{ webhook_id: string; type: string; status_code: number | null; outcome: string; next_attempt_at: string | null }>;
  meta: { cursor: string | null };
}

const run = randomUUID().slice(0, 8);

/**
 * D-53 … D-56 through the gateway, every app a process, private hosts
 * refused (the production setting): endpoint management, the bad input a
 * client can send (each a 400 with details), plain members refused, and a
 * test message whose host cannot be reached in the delivery log.
 */
describe('webhooks end to end', () => {
  const apps: AppProcess[] = [];
  let gateway: AppProcess;
  let owner: MemberWithToken;
  let plain: MemberWithToken;

  const eventually = async (check: () => Promise<boolean>, what: string): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const create = (body: unknown, token = owner.token) =>
    call<Endpoint & ErrorBody>(gateway.url, 'POST', '/v1/webhook-endpoints', { token, body });

  beforeAll(async () => {
    apps.push(
      ...(await Promise.all([
        startAppProcess('identity'),
        startAppProcess('webhooks', { FEED_ALLOW_PRIVATE_HOSTS: 'false', WEBHOOK_RETRY_SCHEDULE_MS: '0' }),
      ])),
    );
    gateway = await startAppProcess('gateway');
    apps.push(gateway);
    owner = memberWithToken({ workspace: `hooks-${run}`, email: `owner-${run}@example.com`, role: 'owner' });
    plain = memberWithToken({ workspace: `hooks-${run}`, email: `plain-${run}@example.com`, role: 'member' });
  });

  afterAll(async () => {
    await Promise.all(apps.map((p) => p.stop()));
  });

  it.each([
    ['plain http', { url: 'http://hooks.example.com/a', event_types: ['session.started'] }, 'url'],
    ['a loopback address', { url: 'https://127.0.0.1/a', event_types: ['session.started'] }, 'url'],
    ['a private address', { url: 'https://10.0.0.8/a', event_types: ['session.started'] }, 'url'],
    ['the metadata address', { url: 'https://169.254.169.254/latest/meta-data', event_types: ['session.started'] }, 'url'],
    ['an unknown event type', { url: 'https://hooks.example.com/a', event_types: ['session.started', 'session.*'] }, 'event_types'],
    [
      '101 event types',
      { url: 'https://hooks.example.com/a', event_types: Array.from({ length: 101 }, () => 'session.started') },
      'event_types',
    ],
    ['no event type', { url: 'https://hooks.example.com/a', event_types: [] }, 'event_types'],
    ['a 3 KB URL', { url: `https://hooks.example.com/${'a'.repeat(3_000)}`, event_types: ['session.started'] }, 'url'],
    ['an unknown field', { url: 'https://hooks.example.com/a', event_types: ['session.started'], secret: 'mine' }, 'secret'],
  ])('%s is a 400 with details', async (_what, body, path) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details?.map((d) => d.path)).toContain(path);
  });

  it('plain members get 403 on every webhook route; a foreign or missing id is 404', async () => {
    expect((await create({ url: 'https://hooks.example.com/a', event_types: ['session.started'] }, plain.token)).status).toBe(403);
    expect((await call(gateway.url, 'GET', '/v1/webhook-endpoints', { token: plain.token })).status).toBe(403);
    expect((await call(gateway.url, 'GET', `/v1/webhook-endpoints/${randomUUID()}`, { token: owner.token })).status).toBe(404);
    const stranger = memberWithToken({ workspace: `hooks-other-${run}`, email: `other-${run}@example.com`, role: 'owner' });
    const mine = await create({ url: 'https://hooks.example.com/mine', event_types: ['member.joined'] });
    expect((await call(gateway.url, 'GET', `/v1/webhook-endpoints/${mine.body.data.endpoint_id}`, { token: stranger.token })).status).toBe(
      404,
    );
  });

  it('manages an endpoint; a test message to a host that does not resolve is a failed attempt with no status', async () => {
    const created = await create({
      url: 'https://hooks.invalid/worktrack',
      event_types: ['session.started', 'plate.item.assigned'],
      description: 'ops',
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ url: 'https://hooks.invalid/worktrack', enabled: true, disabled_reason: null });
    expect(created.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = created.body.data.endpoint_id;
    const read = await call<Endpoint>(gateway.url, 'GET', `/v1/webhook-endpoints/${id}`, { token: owner.token });
    expect(read.body.data.secret).toBeUndefined();
    const patched = await call<Endpoint>(gateway.url, 'PATCH', `/v1/webhook-endpoints/${id}`, {
      token: owner.token,
      body: { event_types: ['session.closed'] },
    });
    expect(patched.body.data.event_types).toEqual(['session.closed']);
    const rotated = await call<Endpoint>(gateway.url, 'POST', `/v1/webhook-endpoints/${id}/rotate-secret`, { token: owner.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).not.toBe(created.body.data.secret);

    const test = await call<{ data: { webhook_id: string } }>(gateway.url, 'POST', `/v1/webhook-endpoints/${id}/test`, {
      token: owner.token,
    });
    expect(test.status).toBe(202);
    let log: Attempts['data'] = [];
    await eventually(async () => {
      log = (await call<Attempts>(gateway.url, 'GET', `/v1/webhook-endpoints/${id}/deliveries`, { token: owner.token })).body.data;
      return log.length > 0;
    }, 'the attempt');
    expect(log[0]).toMatchObject({
      webhook_id: test.body.data.webhook_id,
      type: 'webhook.test',
      status_code: null,
      outcome: 'failed',
      next_attempt_at: null,
    });

    const replay = await call<{ data: { messages: number } }>(
      gateway.url,
      'POST',
      `/v1/webhook-messages/${test.body.data.webhook_id}/replay`,
      {
        token: owner.token,
      },
    );
    expect(replay.status).toBe(202);
    expect(replay.body.data.messages).toBe(1);
    expect((await call(gateway.url, 'POST', `/v1/webhook-messages/msg_${'0'.repeat(32)}/replay`, { token: owner.token })).status).toBe(404);
    expect((await call(gateway.url, 'POST', `/v1/webhook-messages/nope/replay`, { token: owner.token })).status).toBe(400);
    const recovered = await call<{ data: { messages: number } }>(gateway.url, 'POST', `/v1/webhook-endpoints/${id}/recover`, {
      token: owner.token,
      body: { since: new Date(Date.now() - 3_600_000).toISOString() },
    });
    expect(recovered.status).toBe(202);

    expect((await call(gateway.url, 'DELETE', `/v1/webhook-endpoints/${id}`, { token: owner.token })).status).toBe(200);
    expect((await call(gateway.url, 'GET', `/v1/webhook-endpoints/${id}`, { token: owner.token })).status).toBe(404);
  });
});
