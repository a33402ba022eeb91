import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  EventsLinked,
  EventsStored,
  GetReport,
  MemberState,
  PlateItemAssigned,
  PlateItemCompleted,
  SessionChanged,
  UsageStored,
  type ActorV1,
  type GetReportV1,
  type MemberV1,
  type SessionChangedV1,
} from '@worktrack/contracts';
import { CommandClient } from '@worktrack/platform';
import { MessagePublisher, type TestKafka } from '@worktrack/testing';
import { ProjectionRepository } from '../src/projection/projection.repository';
import { startReporting, type ReportingUnderTest } from './reporting-service';

/** A partial match inside toEqual (typed). */
const like = (expected: Record<string, unknown>): unknown => expect.objectContaining(expected) as unknown;

const week = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };

/**
 * The reporting projection on the real broker and database: fed messages
 * out of order, twice, and across topics in any order, the buckets and the
 * reports come out the same (ADR 0018).
 */
describe('reporting projection (D-50, ADR 0018)', () => {
  let kafka: TestKafka;
  let rpc: CommandClient;
  let publisher: MessagePublisher;
  let app: NestFastifyApplication;
  let reporting: ReportingUnderTest | undefined;
  const workspace = randomUUID();
  const memberId = randomUUID();
  const member: MemberV1 = {
    memberId,
    workspaceId: workspace,
    kind: 'human',
    role: 'owner',
    displayName: 'Ada',
    email: null,
    timezone: 'Europe/Berlin',
    workingHours: week,
    plateCapacity: 6,
    version: 1,
  };
  const actor: ActorV1 = {
    memberId,
    workspaceId: workspace,
    scope: 'full',
    credential: 'api_token',
    profile: {
      memberId,
      workspaceId: workspace,
      role: 'owner',
      timezone: 'Europe/Berlin',
      workingHours: week,
      plateCapacity: 6,
      version: 1,
    },
  };
  // The summary answers the API's own data array as text (D-50); the checks read it as rows.
  const report = async (over: Partial<GetReportV1> = {}) => {
    const r = await rpc.send(
      GetReport,
      { actor, report: 'summary', from: '2026-03-28', to: '2026-03-30', tz: 'Europe/Berlin', groupBy: ['day'], filters: {}, ...over },
      { key: memberId },
    );
    return r.body !== undefined
      ? {
          ...r,
          rows: (JSON.parse(gunzipSync(Buffer.from(r.body, 'base64')).toString('utf8')) as { data: Array<Record<string, unknown>> }).data,
        }
      : r;
  };
  const change = (sessionId: string, over: Partial<SessionChangedV1>): SessionChangedV1 => ({
    change: 'created',
    sessionId,
    memberId,
    workspaceId: workspace,
    source: 'timer',
    state: 'active',
    startedAt: '2026-03-28T22:00:00.000Z',
    closedAt: null,
    closedReason: null,
    revision: 1,
    changedAt: '2026-03-28T22:00:00.000Z',
    workType: 'reactive',
    projectId: null,
    goalId: null,
    intentText: 'x',
    userTags: [],
    createdAt: '2026-03-28T22:00:00.000Z',
    ...over,
  });

  beforeAll(async () => {
    reporting = await startReporting('reporting');
    ({ app, kafka } = reporting);
    rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 20_000 });
    await rpc.start();
    publisher = new MessagePublisher(kafka.client);
  }, 120_000);

  afterAll(async () => {
    await rpc?.stop();
    await reporting?.close();
  });

  const settle = async (check: (r: Awaited<ReturnType<typeof report>>) => boolean): Promise<Awaited<ReturnType<typeof report>>> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await report();
      if (check(r) || Date.now() > deadline) return r;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  it('a paused session across midnight and DST, changes out of order and twice, an event linked before it was stored: the same totals', async () => {
    const sessionId = randomUUID();
    const eventId = randomUUID();
    // The close first, then the pause, then the creation; the member last; each twice.
    const changes = [
      change(sessionId, {
        change: 'closed',
        state: 'closed',
        closedAt: '2026-03-29T04:00:00.000Z',
        closedReason: 'explicit',
        revision: 4,
        changedAt: '2026-03-29T04:00:00.000Z',
      }),
      change(sessionId, { change: 'resumed', revision: 3, changedAt: '2026-03-28T23:30:00.000Z' }),
      change(sessionId, { change: 'paused', state: 'paused', revision: 2, changedAt: '2026-03-28T22:30:00.000Z' }),
      change(sessionId, {}),
    ];
    for (let round = 0; round < 2; round++) {
      await publisher.publish(EventsLinked, { memberId, links: [{ eventId, sessionId, version: 1 }] }, { key: memberId });
      for (const c of changes) await publisher.publish(SessionChanged, c, { key: memberId });
      await publisher.publish(
        EventsStored,
        {
          memberId,
          workspaceId: workspace,
          events: [{ eventId, occurredAt: '2026-03-29T02:00:00.000Z', sourceType: 'ci', eventType: 'build' }],
        },
        { key: memberId },
      );
      await publisher.publish(
        UsageStored,
        {
          memberId,
          workspaceId: workspace,
          usage: [
            {
              usageId: eventId,
              occurredAt: '2026-03-29T02:30:00.000Z',
              provider: 'anthropic',
              model: 'm',
              operation: 'chat',
              inputTokens: 10,
              outputTokens: 5,
              cacheReadInputTokens: null,
              cacheCreationInputTokens: null,
              reasoningOutputTokens: null,
              cost: '0.000000001',
              currency: 'USD',
              costSource: 'reported',
              sessionId,
            },
          ],
        },
        { key: memberId },
      );
      await publisher.publish(MemberState, member, { key: memberId });
    }
    // Berlin: 22:00Z–23:00Z on the 28th (a pause 22:30–23:00), 23:00Z–04:00Z on the 29th (a pause 23:00–23:30).
    // Topics are consumed independently: settled once every one of them has been read.
    const r = await settle(
      (x) =>
        x.rows.length === 2 &&
        (x.totals?.linked_event_count as number) === 1 &&
        x.totals?.usage_cost !== '0' &&
        (x.totals?.paused_seconds as number) === 3_600,
    );
    expect(r.rows).toEqual([
      like({ group: { day: '2026-03-28' }, tracked_seconds: 1_800, paused_seconds: 1_800, session_count: 1 }),
      like({
        group: { day: '2026-03-29' },
        tracked_seconds: 16_200,
        paused_seconds: 1_800,
        session_count: 0,
        linked_event_count: 1,
        usage_cost: '0.000000001',
        input_tokens: 10,
      }),
    ]);
    // The same instants in New York (hour buckets): one day.
    const ny = await report({ tz: 'America/New_York' });
    expect(ny.rows).toEqual([
      like({
        group: { day: '2026-03-28' },
        tracked_seconds: 18_000,
        paused_seconds: 3_600,
        session_count: 1,
        linked_event_count: 1,
      }),
    ]);
    // D-50 by week: whole weeks from the week roll-up, the partial weeks at the ends from the days — the same totals.
    const berlinWeek = like({
      group: { week: '2026-03-23' },
      tracked_seconds: 18_000,
      paused_seconds: 3_600,
      session_count: 1,
      linked_event_count: 1,
      usage_cost: '0.000000001',
    });
    expect((await report({ from: '2026-03-23', to: '2026-04-05', groupBy: ['week'] })).rows).toEqual([berlinWeek]);
    expect((await report({ from: '2026-03-25', to: '2026-04-05', groupBy: ['week'] })).rows).toEqual([berlinWeek]);
    expect((await report({ from: '2026-03-16', to: '2026-03-29', groupBy: ['week', 'member'] })).rows).toEqual([
      like({ group: { week: '2026-03-23', member_id: memberId }, tracked_seconds: 18_000 }),
    ]);
    // A relink to no session moves the event outside, with null session keys.
    await publisher.publish(EventsLinked, { memberId, links: [{ eventId, sessionId: null, version: 2 }] }, { key: memberId });
    const relinked = await settle((x) => (x.totals?.outside_session_event_count as number) === 1);
    expect(relinked.totals).toMatchObject({ linked_event_count: 0, outside_session_event_count: 1 });
    const byType = await report({ groupBy: ['work_type'] });
    expect(byType.rows).toEqual([
      like({
        group: { work_type: 'reactive' },
        tracked_seconds: 18_000,
        usage_cost: '0.000000001',
        linked_event_count: 0,
      }),
      like({ group: { work_type: null }, outside_session_event_count: 1, tracked_seconds: 0 }),
    ]);
  }, 90_000);

  it('skips messages at or below the stored position: a redelivered batch changes nothing', async () => {
    const projection = app.get(ProjectionRepository);
    const sessionId = randomUUID();
    const before = await report({ from: '2026-05-01', to: '2026-05-01', tz: 'UTC' });
    const message = {
      topic: `redelivery-${randomUUID()}`,
      partition: 0,
      offset: '7',
      payload: change(sessionId, {
        source: 'manual',
        state: 'closed',
        startedAt: '2026-05-01T10:00:00.000Z',
        closedAt: '2026-05-01T11:00:00.000Z',
        changedAt: '2026-05-01T11:00:00.000Z',
      }),
    };
    let applied = 0;
    for (let i = 0; i < 2; i++) {
      await projection.consume([message], (m, fresh) => {
        applied += fresh.length;
        return projection.sessions(m, fresh);
      });
    }
    expect(applied).toBe(1);
    const after = await report({ from: '2026-05-01', to: '2026-05-01', tz: 'UTC' });
    expect((after.totals?.tracked_seconds as number) - ((before.totals?.tracked_seconds as number) ?? 0)).toBe(3_600);
  }, 60_000);
  it("cuts days exactly in a half-hour zone other than the member's: Asia/Kolkata, hand-computed (D-50)", async () => {
    const projection = app.get(ProjectionRepository);
    const sessionId = randomUUID();
    const eventId = randomUUID();
    // A Berlin member's session 18:00Z–19:00Z: in Kolkata (+5:30) 23:30–24:00 on the 10th and 00:00–00:30 on the 11th.
    await projection.consume(
      [
        {
          topic: `kolkata-${randomUUID()}`,
          partition: 0,
          offset: '0',
          payload: change(sessionId, {
            source: 'manual',
            state: 'closed',
            startedAt: '2026-04-10T18:00:00.000Z',
            closedAt: '2026-04-10T19:00:00.000Z',
            changedAt: '2026-04-10T19:00:00.000Z',
          }),
        },
      ],
      (m, fresh) => projection.sessions(m, fresh),
    );
    // Usage at 18:15Z (the 10th in Kolkata), an event at 18:45Z (the 11th), both in the session.
    await publisher.publish(
      EventsStored,
      {
        memberId,
        workspaceId: workspace,
        events: [{ eventId, occurredAt: '2026-04-10T18:45:00.000Z', sourceType: 'ci', eventType: 'build' }],
      },
      { key: memberId },
    );
    await publisher.publish(EventsLinked, { memberId, links: [{ eventId, sessionId, version: 1 }] }, { key: memberId });
    await publisher.publish(
      UsageStored,
      {
        memberId,
        workspaceId: workspace,
        usage: [
          {
            usageId: randomUUID(),
            occurredAt: '2026-04-10T18:15:00.000Z',
            provider: 'anthropic',
            model: 'm',
            operation: 'chat',
            inputTokens: 10,
            outputTokens: 5,
            cacheReadInputTokens: null,
            cacheCreationInputTokens: null,
            reasoningOutputTokens: null,
            cost: '0.000000002',
            currency: 'USD',
            costSource: 'reported',
            sessionId,
          },
        ],
      },
      { key: memberId },
    );
    const kolkata = { from: '2026-04-10', to: '2026-04-11', tz: 'Asia/Kolkata' };
    const deadline = Date.now() + 30_000;
    let r = await report(kolkata);
    while (Date.now() < deadline && !(r.totals?.linked_event_count === 1 && r.totals?.input_tokens === 10)) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      r = await report(kolkata);
    }
    expect(r.rows).toEqual([
      like({
        group: { day: '2026-04-10' },
        tracked_seconds: 1_800,
        paused_seconds: 0,
        session_count: 1,
        linked_event_count: 0,
        usage_cost: '0.000000002',
        input_tokens: 10,
        output_tokens: 5,
      }),
      like({
        group: { day: '2026-04-11' },
        tracked_seconds: 1_800,
        session_count: 0,
        linked_event_count: 1,
        usage_cost: '0',
        input_tokens: 0,
      }),
    ]);
    // In the member's own zone the same hour is one day.
    expect((await report({ from: '2026-04-10', to: '2026-04-11' })).rows).toEqual([
      like({ group: { day: '2026-04-10' }, tracked_seconds: 3_600, session_count: 1, linked_event_count: 1, input_tokens: 10 }),
    ]);
  }, 60_000);
  it('the plate report counts done items and overflow in and out, whatever order and however often the plate messages come (D-51)', async () => {
    // Hand-computed: capacity 6 (the member's); on 2027-02-01 two items asked for and landed there, one done;
    // one item asked for 2027-02-01 landed on 2027-02-02 (out on the 1st, in on the 2nd), and it is done.
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const assigned = (plateItemId: string, plateDate: string, requestedDate: string) => ({
      plateItemId,
      workspaceId: workspace,
      assigneeId: memberId,
      assignedBy: memberId,
      title: 't',
      plateDate,
      overflowed: plateDate !== requestedDate,
      requestedDate,
      createdAt: '2027-01-30T09:00:00.000Z',
    });
    const completed = (plateItemId: string, plateDate: string) => ({
      plateItemId,
      workspaceId: workspace,
      assigneeId: memberId,
      completedBy: memberId,
      plateDate,
      doneAt: '2027-02-02T10:00:00.000Z',
    });
    // The completion of c before its assignment; a's assignment and completion twice.
    await publisher.publish(PlateItemCompleted, completed(c, '2027-02-02'), { key: memberId });
    await publisher.publish(PlateItemAssigned, assigned(a, '2027-02-01', '2027-02-01'), { key: memberId });
    await publisher.publish(PlateItemAssigned, assigned(b, '2027-02-01', '2027-02-01'), { key: memberId });
    await publisher.publish(PlateItemCompleted, completed(a, '2027-02-01'), { key: memberId });
    await publisher.publish(PlateItemAssigned, assigned(a, '2027-02-01', '2027-02-01'), { key: memberId });
    await publisher.publish(PlateItemCompleted, completed(a, '2027-02-01'), { key: memberId });
    await publisher.publish(PlateItemAssigned, assigned(c, '2027-02-02', '2027-02-01'), { key: memberId });
    const expected = [
      { assignee_id: memberId, day: '2027-02-01', capacity: 6, assigned: 2, done: 1, overflowed_in: 0, overflowed_out: 1 },
      { assignee_id: memberId, day: '2027-02-02', capacity: 6, assigned: 1, done: 1, overflowed_in: 1, overflowed_out: 0 },
    ];
    const plate = () => report({ report: 'plate', from: '2027-02-01', to: '2027-02-03', tz: 'UTC', groupBy: [] });
    const deadline = Date.now() + 30_000;
    let r = await plate();
    while (JSON.stringify(r.rows) !== JSON.stringify(expected) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      r = await plate();
    }
    expect(r.rows).toEqual(expected);

    // The same facts applied straight to the projection, completion first and each twice: the same rows.
    const projection = app.get(ProjectionRepository);
    const [d] = [randomUUID()];
    await projection.consume(
      [{ topic: `plate-${d}`, partition: 0, offset: '0', payload: completed(d, '2027-02-03') }],
      async (m, fresh) => {
        for (const x of fresh) await projection.plateCompleted(m, x);
        await projection.plateCompleted(m, fresh[0]);
        return [];
      },
    );
    await projection.consume(
      [{ topic: `plate-${d}`, partition: 0, offset: '1', payload: assigned(d, '2027-02-03', '2027-02-02') }],
      async (m, fresh) => {
        for (const x of fresh) await projection.plate(m, x);
        await projection.plate(m, fresh[0]);
        return [];
      },
    );
    const withD = await plate();
    expect(withD.rows).toEqual([
      expected[0],
      { ...expected[1], overflowed_out: 1 },
      { assignee_id: memberId, day: '2027-02-03', capacity: 6, assigned: 1, done: 1, overflowed_in: 1, overflowed_out: 0 },
    ]);
  }, 90_000);
});
