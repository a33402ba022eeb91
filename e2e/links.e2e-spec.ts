import { randomUUID } from 'node:crypto';
import { memberWithToken, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';
import { call } from './http';

interface Timeline {
  data: Array<{ event_id: string; occurred_at: string; session_id: string | null }>;
}

/**
 * D-31 through HTTP: events reported while a timer session runs are linked to
 * it in the timeline (D-21) and filterable by session_id; a back-dated close
 * unlinks the events after it. Every app runs as a process.
 */
describe('events linked to sessions, end to end', () => {
  const apps: AppProcess[] = [];
  let gateway: AppProcess;
  let member: MemberWithToken;

  beforeAll(async () => {
    apps.push(...(await Promise.all(['identity', 'ingestion', 'sessions', 'correlation'].map((a) => startAppProcess(a)))));
    gateway = await startAppProcess('gateway');
    apps.push(gateway);
    member = memberWithToken({ workspace: `links-${randomUUID().slice(0, 8)}`, email: `l-${randomUUID().slice(0, 8)}@example.com` });
  });

  afterAll(async () => {
    await Promise.all(apps.map((p) => p.stop()));
  });

  const timeline = (query = ''): Promise<{ status: number; body: Timeline }> =>
    call<Timeline>(gateway.url, 'GET', `/v1/activity/events?limit=100${query}`, { token: member.token });
  const eventually = async (check: () => Promise<boolean>, what: string): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('links, filters and unlinks as the session changes', async () => {
    const started = await call<{ data: { session_id: string; started_at: string } }>(gateway.url, 'POST', '/v1/sessions', {
      token: member.token,
      body: { intent_text: 'Fix the flaky test', source: 'timer' },
    });
    expect(started.status).toBe(201);
    const sessionId = started.body.data.session_id;
    const t0 = Date.parse(started.body.data.started_at);
    const at = (offsetMs: number): string => new Date(t0 + offsetMs).toISOString();
    const before = await call<{ data: { event_ids: string[] } }>(gateway.url, 'POST', '/v1/activity/events', {
      token: member.token,
      body: { events: [{ event_type: 'before', occurred_at: at(-60_000) }] },
    });
    const during = await call<{ data: { event_ids: string[] } }>(gateway.url, 'POST', '/v1/activity/events', {
      token: member.token,
      body: {
        events: [
          { event_type: 'during', occurred_at: at(1_000) },
          { event_type: 'later', occurred_at: at(3_000) },
        ],
      },
    });
    const [early, late] = during.body.data.event_ids;

    await eventually(async () => (await timeline()).body.data.filter((e) => e.session_id === sessionId).length === 2, 'both events linked');
    const all = (await timeline()).body.data;
    expect(all.find((e) => e.event_id === before.body.data.event_ids[0])?.session_id).toBeNull();
    const filtered = await timeline(`&session_id=${sessionId}`);
    expect(filtered.body.data.map((e) => e.event_id).sort()).toEqual([early, late].sort());

    // Close it back-dated to between the two events (D-26: not in the future): the later one is no longer covered.
    while (Date.now() < t0 + 2_200) await new Promise((r) => setTimeout(r, 50));
    const closed = await call(gateway.url, 'POST', `/v1/sessions/${sessionId}/close`, {
      token: member.token,
      body: { closed_at: at(2_000) },
    });
    expect(closed.status).toBe(200);
    await eventually(
      async () => (await timeline()).body.data.find((e) => e.event_id === late)?.session_id === null,
      'the later event unlinked',
    );
    expect((await timeline(`&session_id=${sessionId}`)).body.data.map((e) => e.event_id)).toEqual([early]);
  });
});
