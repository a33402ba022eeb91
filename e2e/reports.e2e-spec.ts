import { randomUUID } from 'node:crypto';
import { memberWithToken, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';
import { call, type ErrorBody } from './http';

interface SummaryRow {
  group: Record<string, string | null>;
  tracked_seconds: number;
  paused_seconds: number;
  session_count: number;
  linked_event_count: number;
  outside_session_event_count: number;
  usage_cost: string;
  input_tokens: number;
  output_tokens: number;
}
interface Summary {
  data: SummaryRow[];
  meta: { as_of: string; tz: string; from: string; to: string; totals: Omit<SummaryRow, 'group'> };
}

/** A partial match inside toEqual (typed, so the fixture tables stay readable). */
const like = (expected: Record<string, unknown>): unknown => expect.objectContaining(expected) as unknown;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The date of `at` in `tz`. */
const dateIn = (at: Date, tz: string): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);

/**
 * Reports (D-49 … D-52) through HTTP, every app a process: a hand-computed
 * fixture (sessions across midnight and both DST changes, overlapping manual
 * blocks, a relinked event, usage, a paused timer closed back-dated, a live
 * session) read back in two zones; CSV; who sees what; bad input.
 */
describe('reports, end to end', () => {
  const apps: AppProcess[] = [];
  let gateway: AppProcess;
  let owner: MemberWithToken;
  let plain: MemberWithToken;
  let other: MemberWithToken;
  let reportOnly: string;

  const post = async <T>(m: { token: string }, path: string, body: unknown, status = 201): Promise<T> => {
    const res = await call<T & ErrorBody>(gateway.url, 'POST', path, { token: m.token, body });
    if (res.status !== status) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const summary = async (token: string, query: string): Promise<Summary> => {
    const res = await call<Summary & ErrorBody>(gateway.url, 'GET', `/v1/reports/summary?${query}`, { token });
    if (res.status !== 200) throw new Error(`summary: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const manual = (m: MemberWithToken, started_at: string, ended_at: string) =>
    post<{ data: { session_id: string } }>(m, '/v1/sessions', { intent_text: 'block', source: 'manual', started_at, ended_at });
  const event = (m: MemberWithToken, occurred_at: string) =>
    post(m, '/v1/activity/events', { event_type: 'build', source_type: 'ci', external_id: `e-${randomUUID()}`, occurred_at }, 202);
  /** The summary once it shows what `check` wants (links are eventually consistent, D-31). */
  const eventually = async (token: string, query: string, check: (s: Summary) => boolean): Promise<Summary> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const s = await summary(token, query);
      if (check(s) || Date.now() > deadline) return s;
      await sleep(250);
    }
  };
  const byDay = (s: Summary): Record<string, Omit<SummaryRow, 'group'>> =>
    Object.fromEntries(s.data.map(({ group, ...metrics }) => [group.day as string, metrics]));

  beforeAll(async () => {
    apps.push(
      ...(await Promise.all(
        ['identity', 'ingestion', 'sessions', 'correlation', 'plate', 'reporting'].map((a) => startAppProcess(a, {}, 150_000)),
      )),
    );
    gateway = await startAppProcess('gateway', {}, 150_000);
    apps.push(gateway);
    const workspace = `reports-${randomUUID().slice(0, 8)}`;
    owner = memberWithToken({ workspace, email: `o-${randomUUID().slice(0, 8)}@example.com`, timezone: 'Europe/Berlin' });
    plain = memberWithToken({
      workspace,
      email: `p-${randomUUID().slice(0, 8)}@example.com`,
      role: 'member',
      timezone: 'America/New_York',
    });
    other = memberWithToken({ workspace: `reports-other-${randomUUID().slice(0, 8)}`, email: `x-${randomUUID().slice(0, 8)}@example.com` });
    const token = await post<{ data: { token: string } }>(plain, '/v1/tokens', { name: 'reports', scope: 'report_only' });
    reportOnly = token.data.token;

    // Across midnight and the spring DST change in Berlin (2026-03-29 01:00Z).
    await manual(owner, '2026-03-28T22:00:00Z', '2026-03-29T04:00:00Z');
    // An event outside every session, then a block that covers it: relinked (D-31); and one that stays outside.
    await event(owner, '2026-10-15T12:00:00Z');
    await event(owner, '2026-10-15T20:00:00Z');
    await sleep(500);
    await manual(owner, '2026-10-15T11:00:00Z', '2026-10-15T13:00:00Z');
    // Overlapping manual blocks across the autumn DST change in New York (2026-11-01 06:00Z), summed as recorded (D-24, D-50).
    await manual(owner, '2026-11-01T03:00:00Z', '2026-11-01T09:00:00Z');
    await manual(owner, '2026-11-01T07:00:00Z', '2026-11-01T10:00:00Z');
    await event(owner, '2026-11-01T08:00:00Z');
    await event(owner, '2026-11-01T03:30:00Z');
    await post(
      owner,
      '/v1/usage',
      {
        external_id: `u-${randomUUID()}`,
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        occurred_at: '2026-11-01T08:30:00Z',
        input_tokens: 1000,
        output_tokens: 200,
        cost: { amount: '0.5', currency: 'USD' },
      },
      202,
    );
    // The other member's block (visibility).
    await manual(plain, '2026-10-15T14:00:00Z', '2026-10-15T15:00:00Z');
  }, 180_000);

  afterAll(async () => {
    await Promise.all(apps.map((p) => p.stop()));
  });

  const FIXTURE = 'from=2026-03-28&to=2026-11-01&group_by=day';
  /** Every fixture write projected: the links (D-31) and the usage record arrive on their own topics, after the sessions. */
  const settled = (s: Summary): boolean =>
    s.meta.totals.linked_event_count === 3 && s.meta.totals.outside_session_event_count === 1 && s.meta.totals.usage_cost === '0.5';

  it('equals the hand-computed totals in Europe/Berlin (D-50: split at midnight, DST days, overlaps summed, relinked event)', async () => {
    const s = await eventually(owner.token, `${FIXTURE}&tz=Europe/Berlin&member_id=${owner.memberId}`, settled);
    expect(byDay(s)).toEqual({
      '2026-03-28': like({ tracked_seconds: 3_600, session_count: 1, linked_event_count: 0 }),
      '2026-03-29': like({ tracked_seconds: 18_000, session_count: 0 }),
      '2026-10-15': like({
        tracked_seconds: 7_200,
        session_count: 1,
        linked_event_count: 1,
        outside_session_event_count: 1,
      }),
      '2026-11-01': like({
        tracked_seconds: 32_400,
        session_count: 2,
        linked_event_count: 2,
        usage_cost: '0.5',
        input_tokens: 1000,
        output_tokens: 200,
      }),
    });
    expect(s.meta).toMatchObject({ tz: 'Europe/Berlin', from: '2026-03-28', to: '2026-11-01' });
    expect(s.meta.totals).toEqual({
      tracked_seconds: 61_200,
      paused_seconds: 0,
      session_count: 4,
      linked_event_count: 3,
      outside_session_event_count: 1,
      usage_cost: '0.5',
      input_tokens: 1000,
      output_tokens: 200,
    });
  }, 60_000);

  it('equals the hand-computed totals in America/New_York (another zone than the member’s)', async () => {
    const s = await eventually(owner.token, `${FIXTURE}&tz=America/New_York&member_id=${owner.memberId}`, settled);
    expect(byDay(s)).toEqual({
      '2026-03-28': like({ tracked_seconds: 21_600, session_count: 1 }),
      '2026-10-15': like({
        tracked_seconds: 7_200,
        session_count: 1,
        linked_event_count: 1,
        outside_session_event_count: 1,
      }),
      '2026-10-31': like({ tracked_seconds: 3_600, session_count: 1, linked_event_count: 1 }),
      '2026-11-01': like({ tracked_seconds: 28_800, session_count: 1, linked_event_count: 1, usage_cost: '0.5' }),
    });
    expect(s.meta.totals).toMatchObject({
      tracked_seconds: 61_200,
      session_count: 4,
      linked_event_count: 3,
      outside_session_event_count: 1,
    });
  }, 60_000);

  it('counts a paused timer closed back-dated and a live session up to as_of, 2 s after the writes (D-49, D-50, D-52)', async () => {
    const t1 = await post<{ data: { session_id: string; started_at: string } }>(owner, '/v1/sessions', {
      intent_text: 'timer',
      source: 'timer',
    });
    await sleep(1_300);
    await post(owner, `/v1/sessions/${t1.data.session_id}/pause`, {}, 200);
    // Closed at one second after its start: the pause came later and is cut away (D-26).
    const closedAt = new Date(Date.parse(t1.data.started_at) + 1_000).toISOString();
    await post(owner, `/v1/sessions/${t1.data.session_id}/close`, { closed_at: closedAt }, 200);
    const t2 = await post<{ data: { started_at: string } }>(owner, '/v1/sessions', { intent_text: 'live', source: 'timer' });
    await sleep(2_000);
    const today = dateIn(new Date(t2.data.started_at), 'Europe/Berlin');
    const s = await summary(owner.token, `from=${today}&to=${today}&tz=Europe/Berlin&member_id=${owner.memberId}`);
    const liveMs = Date.parse(s.meta.as_of) - Date.parse(t2.data.started_at);
    expect(s.meta.totals.session_count).toBe(2);
    expect(s.meta.totals.paused_seconds).toBe(0);
    expect(s.meta.totals.tracked_seconds).toBe(Math.floor((1_000 + liveMs) / 1_000));
  }, 60_000);

  it('answers CSV: CRLF, one header row, the group keys first (D-51)', async () => {
    const res = await fetch(`${gateway.url}/v1/reports/summary?${FIXTURE}&tz=Europe/Berlin&member_id=${owner.memberId}`, {
      headers: { authorization: `Bearer ${owner.token}`, accept: 'text/csv' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const text = await res.text();
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(
      'day,tracked_seconds,paused_seconds,session_count,linked_event_count,outside_session_event_count,usage_cost,input_tokens,output_tokens',
    );
    expect(lines).toContain('2026-03-28,3600,0,1,0,0,0,0,0');
    expect(lines.at(-1)).toBe('');
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
    const sessions = await fetch(`${gateway.url}/v1/reports/sessions?from=2026-03-28&to=2026-11-01&tz=UTC`, {
      headers: { authorization: `Bearer ${owner.token}`, accept: 'text/csv' },
    });
    const rows = (await sessions.text()).split('\r\n').filter((l) => l.length > 0);
    expect(rows[0]).toMatch(/^session_id,member_id,intent_text,/);
    expect(rows).toHaveLength(1 + 5); // the owner's four blocks and the plain member's
  }, 60_000);

  it('answers the summary gzip-encoded to a client that takes gzip and plain to one that does not, the same document (D-51)', async () => {
    const url = `${gateway.url}/v1/reports/summary?${FIXTURE}&tz=Europe/Berlin&member_id=${owner.memberId}`;
    const gzipped = await fetch(url, { headers: { authorization: `Bearer ${owner.token}`, 'accept-encoding': 'gzip' } });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    const plain = await fetch(url, { headers: { authorization: `Bearer ${owner.token}`, 'accept-encoding': 'identity' } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    const [a, b] = [(await gzipped.json()) as Summary, (await plain.json()) as Summary];
    expect(b.data).toEqual(a.data);
    expect(b.meta.totals).toEqual(a.meta.totals);
    expect(b.data.length).toBeGreaterThan(0);
  }, 60_000);

  it('shows a member its own rows, owners the workspace, report_only its own member; a foreign member id is an empty filter (D-52, D-7)', async () => {
    const q = 'from=2026-10-15&to=2026-10-15&tz=UTC&group_by=member';
    const all = await eventually(owner.token, q, (s) => s.data.length === 2);
    expect(all.data.map((r) => r.group.member_id).sort()).toEqual([owner.memberId, plain.memberId].sort());
    const mine = await summary(plain.token, q);
    expect(mine.data.map((r) => r.group.member_id)).toEqual([plain.memberId]);
    const scoped = await summary(reportOnly, q);
    expect(scoped.data.map((r) => r.group.member_id)).toEqual([plain.memberId]);
    const peeking = await summary(plain.token, `${q}&member_id=${owner.memberId}`);
    expect(peeking.data).toEqual([]);
    const foreign = await summary(owner.token, `${q}&member_id=${other.memberId}`);
    expect(foreign.data).toEqual([]);
    expect(foreign.meta.totals.tracked_seconds).toBe(0);
    expect(foreign.meta.totals.usage_cost).toBe('0');
  }, 60_000);

  it('refuses bad input with a 400 and details, never a 500', async () => {
    const cases: Array<[string, string]> = [
      ['from=2026-02-02&to=2026-02-01', 'from'],
      ['from=2025-01-01&to=2026-01-02', 'to'],
      ['from=2026-01-01&to=2026-01-02&group_by=planet', 'group_by'],
      ['from=2026-01-01&to=2026-01-02&group_by=member,day,week', 'group_by'],
      ['from=2026-01-01&to=2026-01-02&tz=Mars/Olympus', 'tz'],
      ['from=2026-02-30&to=2026-03-01', 'from'],
      ['to=2026-03-01', 'from'],
    ];
    for (const [query, path] of cases) {
      const res = await call<ErrorBody>(gateway.url, 'GET', `/v1/reports/summary?${query}`, { token: owner.token });
      expect([query, res.status, res.body.error?.code]).toEqual([query, 400, 'VALIDATION_FAILED']);
      expect(res.body.error?.details?.map((d) => d.path)).toContain(path);
    }
    const cursor = await call<ErrorBody>(gateway.url, 'GET', '/v1/reports/sessions?from=2026-01-01&to=2026-01-02&cursor=nope', {
      token: owner.token,
    });
    expect([cursor.status, cursor.body.error?.code]).toEqual([400, 'INVALID_CURSOR']);
  }, 60_000);

  it('answers the activity and plate reports', async () => {
    const res = await call<{ data: Array<Record<string, unknown>> }>(
      gateway.url,
      'GET',
      `/v1/reports/activity?from=2026-10-15&to=2026-11-01&tz=UTC&member_id=${owner.memberId}`,
      { token: owner.token },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([{ source_type: 'ci', event_type: 'build', in_session: 3, outside_session: 1 }]);
    const plate = await call<{ data: unknown[] }>(gateway.url, 'GET', '/v1/reports/plate?from=2026-10-15&to=2026-12-31', {
      token: owner.token,
    });
    expect(plate.status).toBe(200);
    expect(plate.body.data).toEqual([]);
  }, 60_000);
  it('counts plate items per day: assigned, done, and overflow out of the asked-for day and into the landed day (D-51)', async () => {
    // Hand-computed: the assignee holds 1 item a day and works Monday to Friday. Two items asked for Friday
    // 2027-03-05: the first lands there (and is done), the second overflows past the weekend to Monday 2027-03-08.
    // Friday: assigned 1, done 1, out 1. Monday: assigned 1, done 0, in 1.
    const run = randomUUID().slice(0, 8);
    const lead = memberWithToken({ workspace: `reports-plate-${run}`, email: `lead-${run}@example.com`, timezone: 'UTC' });
    const dev = memberWithToken({ workspace: `reports-plate-${run}`, email: `dev-${run}@example.com`, timezone: 'UTC', capacity: 1 });
    const assign = async (): Promise<{ plate_item_id: string; plate_date: string; overflowed: boolean }> => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const res = await call<{ data: { plate_item_id: string; plate_date: string; overflowed: boolean } } & ErrorBody>(
          gateway.url,
          'POST',
          '/v1/plate/assign',
          { token: lead.token, body: { assignee_id: dev.memberId, title: 'review', plate_date: '2027-03-05' } },
        );
        if (res.status === 201) return res.body.data;
        // The plate service learns new members from identity's topic.
        if (Date.now() > deadline) throw new Error(`assign: ${res.status} ${JSON.stringify(res.body)}`);
        await sleep(250);
      }
    };
    const first = await assign();
    const second = await assign();
    expect([first.plate_date, first.overflowed, second.plate_date, second.overflowed]).toEqual(['2027-03-05', false, '2027-03-08', true]);
    const done = await call(gateway.url, 'PATCH', `/v1/plate/items/${first.plate_item_id}`, { token: dev.token, body: { done: true } });
    expect(done.status).toBe(200);
    const expected = [
      { assignee_id: dev.memberId, day: '2027-03-05', capacity: 1, assigned: 1, done: 1, overflowed_in: 0, overflowed_out: 1 },
      { assignee_id: dev.memberId, day: '2027-03-08', capacity: 1, assigned: 1, done: 0, overflowed_in: 1, overflowed_out: 0 },
    ];
    const query = '/v1/reports/plate?from=2027-03-01&to=2027-03-12&tz=UTC';
    const deadline = Date.now() + 30_000;
    let plate = await call<{ data: unknown[] }>(gateway.url, 'GET', query, { token: lead.token });
    while (JSON.stringify(plate.body.data) !== JSON.stringify(expected) && Date.now() < deadline) {
      await sleep(250);
      plate = await call<{ data: unknown[] }>(gateway.url, 'GET', query, { token: lead.token });
    }
    expect(plate.status).toBe(200);
    expect(plate.body.data).toEqual(expected);
    // The assignee sees its own rows too (D-52).
    expect((await call<{ data: unknown[] }>(gateway.url, 'GET', query, { token: dev.token })).body.data).toEqual(expected);
  }, 90_000);
});
