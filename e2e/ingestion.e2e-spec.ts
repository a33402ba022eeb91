import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { EventsStored } from '@worktrack/contracts';
import {
  memberWithToken,
  readTopic,
  startAppProcess,
  testKafka,
  type AppProcess,
  type MemberWithToken,
  type TestKafka,
} from '@worktrack/testing';
import { call, postOversize, type ErrorBody } from './http';

interface Accepted {
  data: { accepted: number; deduplicated: number; event_ids: string[] };
}
interface Timeline {
  data: Array<{
    event_id: string;
    source_type: string;
    event_type: string;
    occurred_at: string;
    received_at: string;
    payload: unknown;
    external_id: string | null;
    session_id: string | null;
  }>;
  meta: { cursor: string | null };
}

const JWT_SECRET = `e2e-${randomUUID()}`;
const run = randomUUID().slice(0, 8);

/** POST/GET /v1/activity/events through the gateway, identity and ingestion processes. */
describe('activity ingestion end to end', () => {
  let identity: AppProcess;
  let ingestion: AppProcess;
  let gateway: AppProcess;
  let member: MemberWithToken;
  let other: MemberWithToken;

  beforeAll(async () => {
    [identity, ingestion] = await Promise.all([startAppProcess('identity'), startAppProcess('ingestion')]);
    gateway = await startAppProcess('gateway', { JWT_SECRET, REQUEST_TIMEOUT_MS: '3000' });
    member = memberWithToken({ workspace: `ing-${run}`, email: `m-${run}@example.com` });
    other = memberWithToken({ workspace: `ing2-${run}`, email: `o-${run}@example.com` });
  });

  afterAll(async () => {
    await Promise.all([gateway, ingestion, identity].filter(Boolean).map((p) => p.stop()));
  });

  it('answers 202 after the commit: the events are in the timeline at once, with every field', async () => {
    const res = await call<Accepted>(gateway.url, 'POST', '/v1/activity/events', {
      token: member.token,
      body: {
        events: [
          {
            event_type: 'deploy',
            source_type: 'ci',
            external_id: 'd-1',
            occurred_at: '2026-05-01T10:00:00.123456+02:00',
            payload: { env: 'prod', ok: true },
          },
          { event_type: 'tool.call' },
        ],
      },
    });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ accepted: 2, deduplicated: 0 });
    expect(res.body.data.event_ids).toHaveLength(2);
    const timeline = await call<Timeline>(gateway.url, 'GET', '/v1/activity/events?limit=10', { token: member.token });
    expect(timeline.status).toBe(200);
    const deploy = timeline.body.data.find((e) => e.event_id === res.body.data.event_ids[0]);
    expect(deploy).toEqual({
      event_id: res.body.data.event_ids[0],
      source_type: 'ci',
      event_type: 'deploy',
      occurred_at: '2026-05-01T08:00:00.123Z',
      received_at: expect.stringMatching(/Z$/) as string,
      payload: { env: 'prod', ok: true },
      external_id: 'd-1',
      session_id: null,
    });
    const tool = timeline.body.data.find((e) => e.event_id === res.body.data.event_ids[1]);
    expect(tool).toMatchObject({ source_type: 'custom', external_id: null });
    expect(Math.abs(Date.parse(tool!.occurred_at) - Date.parse(tool!.received_at))).toBeLessThan(1000);
  });

  it('takes a single event, deduplicates retries (D-15) and accepts report_only credentials', async () => {
    const ro = (
      await call<{ data: { token: string } }>(gateway.url, 'POST', '/v1/tokens', {
        token: member.token,
        body: { name: 'agent', scope: 'report_only' },
      })
    ).body.data.token;
    const first = await call<Accepted>(gateway.url, 'POST', '/v1/activity/events', {
      token: ro,
      body: { event_type: 'test.run', external_id: 'retry-1' },
    });
    const retry = await call<Accepted>(gateway.url, 'POST', '/v1/activity/events', {
      token: ro,
      body: { event_type: 'test.run', external_id: 'retry-1', payload: { changed: true } },
    });
    expect(first.body.data).toMatchObject({ accepted: 1, deduplicated: 0 });
    expect(retry.body.data).toEqual({ accepted: 0, deduplicated: 1, event_ids: first.body.data.event_ids });
    // Another workspace's member: its own key space, and it never sees these events.
    const theirs = await call<Accepted>(gateway.url, 'POST', '/v1/activity/events', {
      token: other.token,
      body: { event_type: 'test.run', external_id: 'retry-1' },
    });
    expect(theirs.body.data.deduplicated).toBe(0);
    const otherTimeline = await call<Timeline>(gateway.url, 'GET', '/v1/activity/events', { token: other.token });
    expect(otherTimeline.body.data.map((e) => e.event_id)).toEqual(theirs.body.data.event_ids);
  });

  it('stores nothing from a batch with a bad event, naming every bad index (D-17)', async () => {
    const before = await call<Timeline>(gateway.url, 'GET', '/v1/activity/events?limit=100', { token: member.token });
    const res = await call<ErrorBody>(gateway.url, 'POST', '/v1/activity/events', {
      token: member.token,
      body: {
        events: [
          { event_type: 'fine', external_id: 'never-stored' },
          { event_type: 'NOPE' },
          { event_type: 'x', occurred_at: new Date(Date.now() + 3_600_000).toISOString() },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.details?.map((d) => d.path)).toEqual(['events[1].event_type', 'events[2].occurred_at']);
    const after = await call<Timeline>(gateway.url, 'GET', '/v1/activity/events?limit=100', { token: member.token });
    expect(after.body.data).toHaveLength(before.body.data.length);
  });

  it('refuses payloads with secrets (D-18) and oversize requests (413)', async () => {
    const secret = await call<ErrorBody>(gateway.url, 'POST', '/v1/activity/events', {
      token: member.token,
      body: { event_type: 'deploy', payload: { headers: { Authorization: `Bearer ${member.token}` } } },
    });
    expect(secret.status).toBe(400);
    expect(secret.body.error).toMatchObject({ code: 'PAYLOAD_CONTAINS_SECRET', details: [{ path: 'payload.headers.Authorization' }] });
    const body = Buffer.from(
      JSON.stringify({ events: Array.from({ length: 100 }, () => ({ event_type: 'x', payload: { blob: 'y'.repeat(65_000) } })) }),
    );
    const big = await postOversize(gateway.url, '/v1/activity/events', body, {
      'content-type': 'application/json',
      authorization: `Bearer ${member.token}`,
    });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('pages the timeline with filters and an opaque cursor bound to them', async () => {
    const base = Date.parse('2026-02-01T00:00:00Z');
    const events = Array.from({ length: 30 }, (_, i) => ({
      event_type: i % 2 ? 'odd' : 'even',
      source_type: 'pager',
      occurred_at: new Date(base + i * 1000).toISOString(),
    }));
    await call(gateway.url, 'POST', '/v1/activity/events', { token: member.token, body: { events } });
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const qs: string = `source_type=pager&limit=8${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page: { status: number; body: Timeline } = await call<Timeline>(gateway.url, 'GET', `/v1/activity/events?${qs}`, {
        token: member.token,
      });
      expect(page.status).toBe(200);
      ids.push(...page.body.data.map((e) => e.event_id));
      cursor = page.body.meta.cursor;
    } while (cursor);
    expect(new Set(ids).size).toBe(30);
    const odd = await call<Timeline>(
      gateway.url,
      'GET',
      `/v1/activity/events?event_type=odd&from=${encodeURIComponent('2026-02-01T00:00:10Z')}&to=2026-02-01T00:00:20Z`,
      { token: member.token },
    );
    expect(odd.body.data.map((e) => e.occurred_at)).toEqual(['19', '17', '15', '13', '11'].map((s) => `2026-02-01T00:00:${s}.000Z`));
    const first = await call<Timeline>(gateway.url, 'GET', '/v1/activity/events?source_type=pager&limit=2', { token: member.token });
    const wrong = await call<ErrorBody>(
      gateway.url,
      'GET',
      `/v1/activity/events?source_type=other&cursor=${encodeURIComponent(first.body.meta.cursor!)}`,
      { token: member.token },
    );
    expect([wrong.status, wrong.body.error.code]).toEqual([400, 'INVALID_CURSOR']);
    for (const bad of ['limit=0', 'limit=101', 'limit=abc', 'session_id=nope', 'from=yesterday', 'colour=blue']) {
      const res = await call<ErrorBody>(gateway.url, 'GET', `/v1/activity/events?${bad}`, { token: member.token });
      expect([bad, res.status, res.body.error.code]).toEqual([bad, 400, 'VALIDATION_FAILED']);
    }
  });

  it('loses nothing when the service dies between the commit and the publish (outbox), and stores nothing twice', async () => {
    const kafka: TestKafka = testKafka('outbox-reader');
    const published: string[][] = [];
    const reader = await readTopic(kafka.client, EventsStored, ({ payload: stored }) => {
      if (stored.memberId === victim) published.push(stored.events.map((e) => e.eventId));
    });
    // A member of its own (a JWT must name a member that exists in its workspace), so no other test's events mix in.
    const own = memberWithToken({ workspace: `ing-kill-${run}`, email: `k-${run}@example.com` });
    const victim = own.memberId;
    const token = jwt.sign({ sub: victim, wid: own.workspaceId }, JWT_SECRET, { algorithm: 'HS256', expiresIn: 300 });
    expect((await call(gateway.url, 'GET', '/v1/me', { token })).status).toBe(200); // resolved and cached while identity is up
    try {
      // Swap in an ingestion process that kills itself (SIGKILL) right after committing a batch.
      await ingestion.stop();
      const doomed = await startAppProcess('ingestion', { WT_FAILPOINTS: 'ingestion.after-commit' });
      const body = { events: [{ event_type: 'deploy', external_id: 'k-1' }, { event_type: 'deploy' }] };
      const lost = await call<ErrorBody>(gateway.url, 'POST', '/v1/activity/events', { token, body });
      expect(lost.status).toBe(503); // the client saw no 202
      expect(await doomed.exited).toBe('SIGKILL');
      expect(published).toEqual([]);

      // Restart: the relay publishes what the dead process committed; Kafka redelivers the command, which stores nothing twice.
      ingestion = await startAppProcess('ingestion');
      const deadline = Date.now() + 20_000;
      while (published.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(published).toHaveLength(1);
      expect(published[0]).toHaveLength(2);
      const timeline = await call<Timeline>(gateway.url, 'GET', '/v1/activity/events', { token });
      expect(timeline.body.data.map((e) => e.event_id).sort()).toEqual([...published[0]].sort());
      // The client's retry: the external id deduplicates to the stored event; the other event has no key, so it is new (D-16).
      const retry = await call<Accepted>(gateway.url, 'POST', '/v1/activity/events', { token, body });
      expect(retry.status).toBe(202);
      expect(published[0]).toContain(retry.body.data.event_ids[0]);
      expect(retry.body.data.deduplicated).toBe(1);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(published.flat().filter((id) => id === retry.body.data.event_ids[0])).toHaveLength(1);
    } finally {
      await reader.stop();
      await kafka.close();
    }
  });
});
