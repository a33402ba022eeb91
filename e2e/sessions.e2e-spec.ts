import { randomUUID } from 'node:crypto';
import { memberWithToken, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';
import { call, type ErrorBody } from './http';

interface SessionBody {
  session_id: string;
  intent_text: string;
  state: 'active' | 'paused' | 'closed';
  source: 'timer' | 'manual';
  work_type: string;
  goal_id: string | null;
  project_id: string | null;
  started_at: string;
  closed_at: string | null;
  user_tags: string[];
  created_at: string;
  tracked_seconds: number;
  paused_seconds: number;
}
interface One {
  data: SessionBody;
}
interface Page {
  data: SessionBody[];
  meta: { cursor: string | null };
}

const run = randomUUID().slice(0, 8);
const UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** /v1/sessions through the gateway, identity and sessions processes. */
describe('work sessions end to end', () => {
  let identity: AppProcess;
  let sessions: AppProcess;
  let gateway: AppProcess;
  let member: MemberWithToken;
  let reporter: string; // a report_only token of `member`
  let other: MemberWithToken; // another workspace

  const post = <T>(token: string, path: string, body?: unknown) => call<T>(gateway.url, 'POST', `/v1/sessions${path}`, { token, body });
  const list = (token: string, qs = '') => call<Page>(gateway.url, 'GET', `/v1/sessions${qs ? `?${qs}` : ''}`, { token });

  beforeAll(async () => {
    [identity, sessions] = await Promise.all([startAppProcess('identity'), startAppProcess('sessions')]);
    gateway = await startAppProcess('gateway', { REQUEST_TIMEOUT_MS: '5000' });
    member = memberWithToken({ workspace: `ses-${run}`, email: `m-${run}@example.com`, timezone: 'Europe/Berlin' });
    other = memberWithToken({ workspace: `ses2-${run}`, email: `o-${run}@example.com` });
    const created = await call<{ data: { token: string } }>(gateway.url, 'POST', '/v1/tokens', {
      token: member.token,
      body: { name: 'timer agent', scope: 'report_only' },
    });
    expect(created.status).toBe(201);
    reporter = created.body.data.token;
  });

  afterAll(async () => {
    await Promise.all([gateway, sessions, identity].filter(Boolean).map((p) => p.stop()));
  });

  it('runs a timer session through pause, resume and close with a report_only token, answering D-1 bodies in UTC milliseconds', async () => {
    const goal = randomUUID();
    const started = await post<One>(reporter, '', {
      intent_text: 'ship the release',
      source: 'timer',
      goal_id: goal,
      task_id: randomUUID(),
    });
    expect(started.status).toBe(201);
    const s = started.body.data;
    expect(s).toEqual({
      session_id: expect.any(String) as string,
      intent_text: 'ship the release',
      state: 'active',
      source: 'timer',
      work_type: 'intentional',
      goal_id: goal,
      project_id: null,
      started_at: expect.stringMatching(UTC_MS) as string,
      closed_at: null,
      user_tags: [],
      created_at: expect.stringMatching(UTC_MS) as string,
      // D-49: whole seconds, a moment after the start.
      tracked_seconds: expect.any(Number) as number,
      paused_seconds: 0,
    });
    expect(s.tracked_seconds).toBeLessThan(60);
    const paused = await post<One>(reporter, `/${s.session_id}/pause`, { pause_reason: 'standup' });
    expect([paused.status, paused.body.data.state]).toEqual([200, 'paused']);
    const resumed = await post<One>(reporter, `/${s.session_id}/resume`);
    expect([resumed.status, resumed.body.data.state]).toEqual([200, 'active']);
    const closed = await post<One>(reporter, `/${s.session_id}/close`, { closing_note: 'released' });
    expect([closed.status, closed.body.data.state]).toEqual([200, 'closed']);
    expect(closed.body.data.closed_at).toMatch(UTC_MS);
    const again = await post<One>(member.token, `/${s.session_id}/close`, {});
    expect([again.status, again.body]).toEqual([200, closed.body]);
    const mine = await list(reporter, 'state=closed');
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((x) => x.session_id)).toContain(s.session_id);
  });

  it('closes the previous live session at the new start (D-23) and answers 409 naming the state', async () => {
    const first = (await post<One>(member.token, '', { intent_text: 'first', source: 'timer' })).body.data;
    const second = (await post<One>(member.token, '', { intent_text: 'second', source: 'timer' })).body.data;
    const closed = (await list(member.token, 'state=closed&limit=100')).body.data.find((x) => x.session_id === first.session_id);
    expect(closed?.closed_at).toBe(second.started_at);
    const conflict = await post<ErrorBody>(member.token, `/${second.session_id}/resume`);
    expect([conflict.status, conflict.body.error.code]).toEqual([409, 'SESSION_STATE_CONFLICT']);
    expect(conflict.body.error.message).toContain('active');
    const live = await list(member.token, 'state=active');
    expect(live.body.data.map((x) => x.session_id)).toEqual([second.session_id]);
    await post(member.token, `/${second.session_id}/close`);
  });

  it('replays an idempotency key with the same body (201, the session as it is now) and refuses it with another (409)', async () => {
    const body = {
      intent_text: 'retry me',
      source: 'manual',
      started_at: '2026-06-01T09:00:00+02:00',
      ended_at: '2026-06-01T10:00:00+02:00',
      idempotency_key: `k-${run}`,
    };
    const first = await post<One>(member.token, '', body);
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({
      state: 'closed',
      started_at: '2026-06-01T07:00:00.000Z',
      closed_at: '2026-06-01T08:00:00.000Z',
    });
    const replay = await post<One>(reporter, '', body);
    expect([replay.status, replay.body.data]).toEqual([201, first.body.data]);
    const reused = await post<ErrorBody>(member.token, '', { ...body, intent_text: 'another' });
    expect([reused.status, reused.body.error.code]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    // Another workspace's member with the same key: a session of its own.
    const theirs = await post<One>(other.token, '', body);
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.session_id).not.toBe(first.body.data.session_id);
  });

  it('keeps workspaces apart: another member’s session is a 404 and never listed', async () => {
    const mine = (await post<One>(member.token, '', { intent_text: 'private', source: 'timer' })).body.data;
    for (const action of ['pause', 'resume', 'close']) {
      const res = await post<ErrorBody>(other.token, `/${mine.session_id}/${action}`);
      expect([action, res.status, res.body.error.code]).toEqual([action, 404, 'SESSION_NOT_FOUND']);
    }
    const missing = await post<ErrorBody>(member.token, `/${randomUUID()}/pause`);
    expect([missing.status, missing.body.error.code]).toEqual([404, 'SESSION_NOT_FOUND']);
    const theirs = await list(other.token, 'limit=100');
    expect(theirs.body.data.map((x) => x.session_id)).not.toContain(mine.session_id);
    expect((await post<One>(member.token, `/${mine.session_id}/pause`)).body.data.state).toBe('paused'); // untouched by the stranger
    await post(member.token, `/${mine.session_id}/close`);
  });

  it.each([
    ['intent_text over 500 characters', { intent_text: 'x'.repeat(501), source: 'timer' }, 'intent_text'],
    ['an unknown field', { intent_text: 'x', source: 'timer', colour: 'blue' }, 'colour'],
    ['an unknown source', { intent_text: 'x', source: 'stopwatch' }, 'source'],
    ['a goal_id that is not a uuid', { intent_text: 'x', source: 'timer', goal_id: 'g-1' }, 'goal_id'],
    ['a manual block without ended_at', { intent_text: 'x', source: 'manual', started_at: '2026-06-01T09:00:00Z' }, 'ended_at'],
    ['a timer with started_at', { intent_text: 'x', source: 'timer', started_at: '2026-06-01T09:00:00Z' }, 'started_at'],
    [
      'a time without an offset',
      { intent_text: 'x', source: 'manual', started_at: '2026-06-01T09:00:00', ended_at: '2026-06-01T10:00:00Z' },
      'started_at',
    ],
    [
      'an impossible date',
      { intent_text: 'x', source: 'manual', started_at: '2026-02-30T09:00:00Z', ended_at: '2026-03-01T10:00:00Z' },
      'started_at',
    ],
    [
      'a block over 12 hours',
      { intent_text: 'x', source: 'manual', started_at: '2026-06-01T00:00:00Z', ended_at: '2026-06-01T12:00:01Z' },
      'ended_at',
    ],
  ])('refuses %s with 400 VALIDATION_FAILED naming the field', async (_name, body, path) => {
    const res = await post<ErrorBody>(member.token, '', body);
    expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(res.body.error.details?.map((d) => d.path)).toContain(path);
  });

  it('validates paths, bodies of the transitions and list queries', async () => {
    const s = (await post<One>(member.token, '', { intent_text: 'v', source: 'timer' })).body.data;
    const badId = await post<ErrorBody>(member.token, '/not-a-uuid/pause');
    expect([badId.status, badId.body.error.details?.[0].path]).toEqual([400, 'session_id']);
    const extra = await post<ErrorBody>(member.token, `/${s.session_id}/resume`, { please: true });
    expect([extra.status, extra.body.error.details?.[0].path]).toEqual([400, 'please']);
    const future = await post<ErrorBody>(member.token, `/${s.session_id}/close`, {
      closed_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect([future.status, future.body.error.code, future.body.error.details?.[0].path]).toEqual([400, 'VALIDATION_FAILED', 'closed_at']);
    const backdated = await post<One>(member.token, `/${s.session_id}/close`, { closed_at: s.started_at.replace('Z', '+00:00') });
    expect(backdated.body.data.closed_at).toBe(s.started_at);
    for (const bad of ['limit=0', 'limit=101', 'limit=x', 'state=open', 'from=2026-02-30', 'to=yesterday', 'goal_id=g', 'colour=blue']) {
      const res = await list(member.token, bad);
      expect([bad, res.status, (res.body as unknown as ErrorBody).error.code]).toEqual([bad, 400, 'VALIDATION_FAILED']);
    }
    const reversed = await list(member.token, 'from=2026-03-02&to=2026-03-01');
    expect(reversed.status).toBe(400);
    const cursorless = await list(member.token, 'cursor=abc.def');
    expect([cursorless.status, (cursorless.body as unknown as ErrorBody).error.code]).toEqual([400, 'INVALID_CURSOR']);
  });

  it('pages with an opaque cursor bound to its filters, and reads from/to in the member time zone (Europe/Berlin)', async () => {
    // 00:30 in Berlin on 2026-10-25 is 22:30 UTC the day before; 23:30 Berlin (CET, after the switch) is 22:30 UTC that day.
    const block = async (start: string): Promise<SessionBody> =>
      (
        await post<One>(member.token, '', {
          intent_text: 'dst',
          source: 'manual',
          started_at: start,
          ended_at: new Date(Date.parse(start) + 60_000).toISOString(),
        })
      ).body.data;
    const early = await block('2026-10-24T22:30:00Z');
    const late = await block('2026-10-25T22:30:00Z');
    const next = await block('2026-10-25T23:30:00Z');
    // identity publishes the member (with its time zone) through its outbox; the sessions projection follows.
    const deadline = Date.now() + 20_000;
    let ids: string[] = [];
    while (Date.now() < deadline) {
      ids = (await list(member.token, 'from=2026-10-25&to=2026-10-25')).body.data.map((x) => x.session_id);
      if (ids.includes(early.session_id)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(ids.sort()).toEqual([early.session_id, late.session_id].sort());
    expect((await list(member.token, 'from=2026-10-26&to=2026-10-26')).body.data.map((x) => x.session_id)).toEqual([next.session_id]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const qs: string = `state=closed&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page: { status: number; body: Page } = await list(member.token, qs);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((x) => x.session_id));
      cursor = page.body.meta.cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining([early.session_id, late.session_id, next.session_id]));
    const first = await list(member.token, 'state=closed&limit=1');
    const wrong = await list(member.token, `state=active&cursor=${encodeURIComponent(first.body.meta.cursor!)}`);
    expect([wrong.status, (wrong.body as unknown as ErrorBody).error.code]).toEqual([400, 'INVALID_CURSOR']);
  });
});
