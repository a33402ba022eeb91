import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { memberWithToken, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';
import { call, type ErrorBody } from './http';

interface Assignment {
  data: { plate_item_id: string; assignee_id: string; plate_date: string; overflowed: boolean; active_count: number; capacity: number };
}
interface PlateDay {
  data: {
    date: string;
    capacity: number;
    active_count: number;
    items: Array<{ plate_item_id: string; assigned_by: string; title: string; done: boolean }>;
  };
}

const run = randomUUID().slice(0, 8);

/** POST /v1/plate/assign, GET /v1/plate, PATCH /v1/plate/items/{id} through gateway, identity and plate processes. */
describe('the plate end to end', () => {
  let identity: AppProcess;
  let plate: AppProcess;
  let gateway: AppProcess;
  let lead: MemberWithToken;
  let dev: MemberWithToken;
  let stranger: MemberWithToken;

  /** Identity's outbox feeds the plate's member projection asynchronously. */
  const known = async (m: MemberWithToken): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while ((await call(gateway.url, 'GET', '/v1/plate', { token: m.token })).status !== 200) {
      if (Date.now() > deadline) throw new Error('member never reached the plate service');
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    [identity, plate] = await Promise.all([startAppProcess('identity'), startAppProcess('plate')]);
    gateway = await startAppProcess('gateway');
    lead = memberWithToken({ workspace: `plate-${run}`, email: `lead-${run}@example.com`, timezone: 'Asia/Tokyo' });
    dev = memberWithToken({ workspace: `plate-${run}`, email: `dev-${run}@example.com`, timezone: 'Pacific/Kiritimati', capacity: 2 });
    stranger = memberWithToken({ workspace: `other-${run}`, email: `s-${run}@example.com` });
    await Promise.all([known(lead), known(dev), known(stranger)]);
  });

  afterAll(async () => {
    await Promise.all([gateway, plate, identity].filter(Boolean).map((p) => p.stop()));
  });

  it('assigns to the assignee’s today in their timezone, then overflows to the next working day', async () => {
    const today = DateTime.now().setZone('Pacific/Kiritimati').toISODate()!;
    const a = await call<Assignment>(gateway.url, 'POST', '/v1/plate/assign', {
      token: lead.token,
      body: { assignee_id: dev.memberId, title: 'Review #42' },
    });
    expect(a.status).toBe(201);
    expect(a.body.data).toMatchObject({ assignee_id: dev.memberId, plate_date: today, overflowed: false, active_count: 1, capacity: 2 });
    await call(gateway.url, 'POST', '/v1/plate/assign', {
      token: lead.token,
      body: { assignee_id: dev.memberId, title: 'Second', plate_date: today },
    });
    const third = await call<Assignment>(gateway.url, 'POST', '/v1/plate/assign', {
      token: lead.token,
      body: { assignee_id: dev.memberId, title: 'Third' },
    });
    expect(third.body.data.overflowed).toBe(true);
    expect(third.body.data.plate_date > today).toBe(true);
    expect([6, 7]).not.toContain(DateTime.fromISO(third.body.data.plate_date).weekday);

    const mine = await call<PlateDay>(gateway.url, 'GET', '/v1/plate', { token: dev.token });
    expect(mine.body.data).toMatchObject({ date: today, capacity: 2, active_count: 2 });
    expect(mine.body.data.items.map((i) => [i.title, i.assigned_by])).toEqual([
      ['Review #42', lead.memberId],
      ['Second', lead.memberId],
    ]);
    const done = await call<{ data: { done: boolean } }>(gateway.url, 'PATCH', `/v1/plate/items/${a.body.data.plate_item_id}`, {
      token: dev.token,
      body: { done: true },
    });
    expect([done.status, done.body.data.done]).toEqual([200, true]);
    expect((await call<PlateDay>(gateway.url, 'GET', `/v1/plate?date=${today}`, { token: dev.token })).body.data.active_count).toBe(1);
  });

  it('answers the D-33/D-35 errors through HTTP', async () => {
    const yesterday = DateTime.now().setZone('Pacific/Kiritimati').minus({ days: 1 }).toISODate();
    const past = await call<ErrorBody>(gateway.url, 'POST', '/v1/plate/assign', {
      token: lead.token,
      body: { assignee_id: dev.memberId, title: 'x', plate_date: yesterday },
    });
    expect([past.status, past.body.error.code]).toEqual([400, 'PLATE_DATE_IN_PAST']);
    const foreign = await call<ErrorBody>(gateway.url, 'POST', '/v1/plate/assign', {
      token: lead.token,
      body: { assignee_id: stranger.memberId, title: 'x' },
    });
    expect([foreign.status, foreign.body.error.code]).toEqual([400, 'ASSIGNEE_NOT_FOUND']);
    const invalid = await call<ErrorBody>(gateway.url, 'POST', '/v1/plate/assign', {
      token: lead.token,
      body: { assignee_id: 'nope', title: 'x'.repeat(501), plate_date: '2026-13-01', extra: 1 },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.details?.map((d) => d.path).sort()).toEqual(['assignee_id', 'extra', 'plate_date', 'title']);
    const ro = (
      await call<{ data: { token: string } }>(gateway.url, 'POST', '/v1/tokens', {
        token: lead.token,
        body: { name: 'ro', scope: 'report_only' },
      })
    ).body.data.token;
    const forbidden = await call<ErrorBody>(gateway.url, 'POST', '/v1/plate/assign', {
      token: ro,
      body: { assignee_id: dev.memberId, title: 'x' },
    });
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'FORBIDDEN']);
    // Another workspace cannot complete (or see) the item.
    const item = (
      await call<Assignment>(gateway.url, 'POST', '/v1/plate/assign', {
        token: lead.token,
        body: { assignee_id: lead.memberId, title: 'own' },
      })
    ).body.data;
    const steal = await call<ErrorBody>(gateway.url, 'PATCH', `/v1/plate/items/${item.plate_item_id}`, {
      token: stranger.token,
      body: { done: true },
    });
    expect([steal.status, steal.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const notDone = await call<ErrorBody>(gateway.url, 'PATCH', `/v1/plate/items/${item.plate_item_id}`, {
      token: lead.token,
      body: { done: false },
    });
    expect([notDone.status, notDone.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
  });
});
