import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import {
  EventsLinked,
  EventsStored,
  GetReport,
  MemberState,
  SessionChanged,
  UsageLinked,
  UsageStored,
  type ActorV1,
  type GetReportV1,
  type MemberV1,
  type SessionChangedV1,
  type StoredUsageRefV1,
} from '@worktrack/contracts';
import { CommandClient } from '@worktrack/platform';
import { MessagePublisher, type TestKafka } from '@worktrack/testing';
import { ReportingConfig } from '../src/reporting.config';
import { ReportsService } from '../src/reports/reports.service';
import { SummaryCache } from '../src/reports/summary-cache';
import { startReporting, type ReportingUnderTest } from './reporting-service';

const week = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };

interface Summary {
  data: Array<Record<string, unknown> & { group: Record<string, unknown> }>;
  meta: { as_of: string; totals: Record<string, unknown> };
}

/**
 * The rendered-summary cache on the real broker and database (ADR 0018): a hit is the document a render gives,
 * with this request's `as_of` (D-52); after every kind of write the projection consumes, the next summary holds it;
 * the visible members (D-52) and a live session (D-50) keep documents apart or out of the cache.
 */
describe('the summary cache (D-50, D-52, ADR 0018)', () => {
  let kafka: TestKafka;
  let rpc: CommandClient;
  let publisher: MessagePublisher;
  let app: NestFastifyApplication;
  let cache: SummaryCache;
  let config: ReportingConfig;
  let db: DataSource;
  let reporting: ReportingUnderTest | undefined;
  const workspace = randomUUID();
  const ownerId = randomUUID();
  const memberId = randomUUID();
  const memberOf = (id: string, over: Partial<MemberV1> = {}): MemberV1 => ({
    memberId: id,
    workspaceId: workspace,
    kind: 'human',
    role: id === ownerId ? 'owner' : 'member',
    displayName: 'x',
    email: null,
    timezone: 'Europe/Berlin',
    workingHours: week,
    plateCapacity: 6,
    version: 1,
    ...over,
  });
  const actorOf = (id: string): ActorV1 => ({
    memberId: id,
    workspaceId: workspace,
    scope: 'full',
    credential: 'api_token',
    profile: {
      memberId: id,
      workspaceId: workspace,
      role: id === ownerId ? 'owner' : 'member',
      timezone: 'Europe/Berlin',
      workingHours: week,
      plateCapacity: 6,
      version: 1,
    },
  });
  const owner = actorOf(ownerId);

  /** One summary: its text, the decoded document (empty for a CSV), and whether the cache answered it. */
  const ask = async (actor: ActorV1 = owner, over: Partial<GetReportV1> = {}): Promise<{ text: string; doc: Summary; hit: boolean }> => {
    const get = jest.spyOn(cache, 'get');
    try {
      const r = await rpc.send(
        GetReport,
        {
          actor,
          report: 'summary',
          from: '2026-03-01',
          to: '2026-03-31',
          tz: 'Europe/Berlin',
          groupBy: ['member', 'day'],
          filters: {},
          ...over,
        },
        { key: actor.memberId },
      );
      const text = gunzipSync(Buffer.from(r.body ?? '', 'base64')).toString('utf8');
      const doc = over.format === 'csv' ? { data: [], meta: { as_of: '', totals: {} } } : (JSON.parse(text) as Summary);
      return { text, doc, hit: get.mock.results.some((x) => x.value !== undefined) };
    } finally {
      get.mockRestore();
    }
  };
  const withoutAsOf = (text: string): string => text.replace(/"as_of":"[^"]*"/, '"as_of":""');
  /** Every partition's consumed position, summed: it rises when the projection commits a message of this test's topics. */
  const consumed = async (): Promise<number> => {
    const [row] = await db.query<Array<{ n: string }>>('SELECT COALESCE(sum(next_offset), 0)::text AS n FROM reporting.positions');
    return Number(row?.n ?? 0);
  };
  /** Publishes, then waits until the projection has committed it (independent of the revision under test). */
  const written = async (publish: () => Promise<void>): Promise<void> => {
    const before = await consumed();
    await publish();
    const deadline = Date.now() + 30_000;
    while ((await consumed()) === before) {
      if (Date.now() > deadline) throw new Error('the projection did not consume the write');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /** A summary asked twice: the second answered by the cache. */
  const primed = async (actor: ActorV1 = owner, over: Partial<GetReportV1> = {}): Promise<Summary> => {
    await ask(actor, over);
    const second = await ask(actor, over);
    expect(second.hit).toBe(true);
    return second.doc;
  };
  const change = (sessionId: string, over: Partial<SessionChangedV1> = {}): SessionChangedV1 => ({
    change: 'created',
    sessionId,
    memberId: ownerId,
    workspaceId: workspace,
    source: 'timer',
    state: 'active',
    startedAt: '2026-03-10T08:00:00.000Z',
    closedAt: null,
    closedReason: null,
    revision: 1,
    changedAt: '2026-03-10T08:00:00.000Z',
    workType: 'reactive',
    projectId: null,
    goalId: null,
    intentText: 'x',
    userTags: [],
    createdAt: '2026-03-10T08:00:00.000Z',
    ...over,
  });
  const closed = (sessionId: string, member: string, start: string, end: string): SessionChangedV1 =>
    change(sessionId, {
      memberId: member,
      change: 'closed',
      state: 'closed',
      startedAt: start,
      changedAt: end,
      closedAt: end,
      closedReason: 'explicit',
      revision: 2,
    });
  const usage = (usageId: string, occurredAt: string, sessionId: string | null): StoredUsageRefV1 => ({
    usageId,
    occurredAt,
    provider: 'anthropic',
    model: 'm',
    operation: 'chat',
    inputTokens: 10,
    outputTokens: 5,
    cacheReadInputTokens: null,
    cacheCreationInputTokens: null,
    reasoningOutputTokens: null,
    cost: '0.5',
    currency: 'USD' as const,
    costSource: 'reported' as const,
    sessionId,
  });
  const row = (doc: Summary, member: string, day: string) => doc.data.find((r) => r.group.member_id === member && r.group.day === day);

  beforeAll(async () => {
    // Every summary is worth keeping here, however small.
    reporting = await startReporting('reporting_cache', { REPORT_CACHE_MIN_BYTES: '0' });
    ({ app, kafka } = reporting);
    cache = app.get(SummaryCache);
    config = app.get(ReportingConfig);
    db = app.get(DataSource);
    rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 20_000 });
    await rpc.start();
    publisher = new MessagePublisher(kafka.client);
    await written(() => publisher.publish(MemberState, memberOf(ownerId), { key: ownerId }));
    await written(() => publisher.publish(MemberState, memberOf(memberId), { key: memberId }));
    for (const [id, m, day] of [
      [randomUUID(), ownerId, '02'],
      [randomUUID(), memberId, '03'],
    ] as const)
      await written(() =>
        publisher.publish(SessionChanged, closed(id, m, `2026-03-${day}T08:00:00.000Z`, `2026-03-${day}T10:00:00.000Z`), { key: m }),
      );
  }, 120_000);

  afterAll(async () => {
    await rpc?.stop();
    await reporting?.close();
  });

  it("answers a hit with the document a render gives, with the request's own as_of", async () => {
    const miss = await ask();
    expect(miss.hit).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const hit = await ask();
    expect(hit.hit).toBe(true);
    expect(hit.doc.meta.as_of > miss.doc.meta.as_of).toBe(true);
    config.REPORT_CACHE_BYTES = 0;
    try {
      const uncached = await ask();
      expect(uncached.hit).toBe(false);
      expect(withoutAsOf(hit.text)).toBe(withoutAsOf(uncached.text));
    } finally {
      config.REPORT_CACHE_BYTES = 64 * 1024 * 1024;
    }
    expect(hit.doc.data.map((r) => [r.group.member_id, r.group.day, r.tracked_seconds])).toEqual(
      [
        [ownerId, '2026-03-02', 7_200],
        [memberId, '2026-03-03', 7_200],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1]))),
    );
    // The CSV too, whole.
    const csv = async () =>
      gunzipSync(
        Buffer.from(
          (
            await rpc.send(
              GetReport,
              {
                actor: owner,
                report: 'summary',
                from: '2026-03-01',
                to: '2026-03-31',
                tz: 'UTC',
                groupBy: ['day'],
                filters: {},
                format: 'csv',
              },
              { key: ownerId },
            )
          ).body ?? '',
          'base64',
        ),
      ).toString('utf8');
    expect(await csv()).toBe(await csv());
  }, 60_000);

  it('gives two roles their own documents (D-52): the owner the workspace, a member its own rows', async () => {
    const all = await primed(owner);
    const own = await primed(actorOf(memberId));
    expect(new Set(all.data.map((r) => r.group.member_id))).toEqual(new Set([ownerId, memberId]));
    expect(own.data.map((r) => r.group.member_id)).toEqual([memberId]);
    expect((await ask(owner)).doc.data).toEqual(all.data);
  }, 60_000);

  it('holds each kind of write in the next summary: a session, events, a link and a relink, usage and its link, a member zone', async () => {
    // A session closed on the 5th.
    await primed();
    const sessionId = randomUUID();
    await written(() =>
      publisher.publish(SessionChanged, closed(sessionId, ownerId, '2026-03-05T08:00:00.000Z', '2026-03-05T09:00:00.000Z'), {
        key: ownerId,
      }),
    );
    let next = await ask();
    expect(next.hit).toBe(false);
    expect(row(next.doc, ownerId, '2026-03-05')).toMatchObject({ tracked_seconds: 3_600, session_count: 1 });

    // Events stored on the 5th, outside any session.
    await primed();
    const eventId = randomUUID();
    await written(() =>
      publisher.publish(
        EventsStored,
        {
          memberId: ownerId,
          workspaceId: workspace,
          events: [{ eventId, occurredAt: '2026-03-05T08:30:00.000Z', sourceType: 'ci', eventType: 'b' }],
        },
        { key: ownerId },
      ),
    );
    next = await ask();
    expect(row(next.doc, ownerId, '2026-03-05')).toMatchObject({ linked_event_count: 0, outside_session_event_count: 1 });

    // The event linked to the session, then relinked to none.
    await primed();
    await written(() =>
      publisher.publish(EventsLinked, { memberId: ownerId, links: [{ eventId, sessionId, version: 1 }] }, { key: ownerId }),
    );
    next = await ask();
    expect(row(next.doc, ownerId, '2026-03-05')).toMatchObject({ linked_event_count: 1, outside_session_event_count: 0 });
    await primed();
    await written(() =>
      publisher.publish(EventsLinked, { memberId: ownerId, links: [{ eventId, sessionId: null, version: 2 }] }, { key: ownerId }),
    );
    next = await ask();
    expect(row(next.doc, ownerId, '2026-03-05')).toMatchObject({ linked_event_count: 0, outside_session_event_count: 1 });

    // Usage without a session of its own, then linked to the session.
    await primed();
    const usageId = randomUUID();
    await written(() =>
      publisher.publish(
        UsageStored,
        { memberId: ownerId, workspaceId: workspace, usage: [usage(usageId, '2026-03-05T08:45:00.000Z', null)] },
        { key: ownerId },
      ),
    );
    next = await ask();
    expect(row(next.doc, ownerId, '2026-03-05')).toMatchObject({ usage_cost: '0.5', input_tokens: 10 });
    await primed(owner, { groupBy: ['work_type'] });
    await written(() =>
      publisher.publish(UsageLinked, { memberId: ownerId, links: [{ usageId, sessionId, version: 1 }] }, { key: ownerId }),
    );
    const byType = await ask(owner, { groupBy: ['work_type'] });
    expect(byType.hit).toBe(false);
    expect(byType.doc.data.find((r) => r.group.work_type === 'reactive')).toMatchObject({ usage_cost: '0.5' });

    // The member moves to New York: its session of the 3rd (08:00–10:00Z) is still on the 3rd, now from hour buckets,
    // and the key's visible members change with it.
    const before = await primed();
    expect(row(before, memberId, '2026-03-03')).toMatchObject({ tracked_seconds: 7_200 });
    await written(() =>
      publisher.publish(MemberState, memberOf(memberId, { timezone: 'America/New_York', version: 2 }), { key: memberId }),
    );
    next = await ask();
    expect(next.hit).toBe(false);
    expect(row(next.doc, memberId, '2026-03-03')).toMatchObject({ tracked_seconds: 7_200 });
    // A report in New York's zone shows the zone change in the day: 08:00–10:00Z is 04:00–06:00 there, still the 3rd;
    // an evening session shows the move across midnight.
    await written(() =>
      publisher.publish(SessionChanged, closed(randomUUID(), memberId, '2026-03-20T02:00:00.000Z', '2026-03-20T03:00:00.000Z'), {
        key: memberId,
      }),
    );
    const ny = await ask(actorOf(memberId), { tz: 'America/New_York' });
    expect(row(ny.doc, memberId, '2026-03-19')).toMatchObject({ tracked_seconds: 3_600 });
  }, 120_000);

  it('keeps the summary over links that change nothing it reads: a stale link, a link before its event; the event then renders anew', async () => {
    const sessionId = randomUUID();
    const eventId = randomUUID();
    const stored = (id: string, occurredAt: string) =>
      written(() =>
        publisher.publish(
          EventsStored,
          { memberId: ownerId, workspaceId: workspace, events: [{ eventId: id, occurredAt, sourceType: 'ci', eventType: 'b' }] },
          { key: ownerId },
        ),
      );
    const linked = (id: string, session: string | null, version: number) =>
      written(() =>
        publisher.publish(EventsLinked, { memberId: ownerId, links: [{ eventId: id, sessionId: session, version }] }, { key: ownerId }),
      );
    await written(() =>
      publisher.publish(SessionChanged, closed(sessionId, ownerId, '2026-03-06T08:00:00.000Z', '2026-03-06T09:00:00.000Z'), {
        key: ownerId,
      }),
    );
    await stored(eventId, '2026-03-06T08:30:00.000Z');
    await linked(eventId, sessionId, 2);
    const held = await primed();
    expect(row(held, ownerId, '2026-03-06')).toMatchObject({ linked_event_count: 1, outside_session_event_count: 0 });

    // An older version of the event's link: the projection keeps version 2, and the summary its revision.
    await linked(eventId, null, 1);
    const stale = await ask();
    expect(stale.hit).toBe(true);
    expect(stale.doc.data).toEqual(held.data);

    // A link of an event not stored yet counts nowhere until its event arrives.
    const early = randomUUID();
    await linked(early, sessionId, 1);
    expect((await ask()).hit).toBe(true);
    await stored(early, '2026-03-06T08:40:00.000Z');
    const next = await ask();
    expect(next.hit).toBe(false);
    expect(row(next.doc, ownerId, '2026-03-06')).toMatchObject({ linked_event_count: 2, outside_session_event_count: 0 });
  }, 60_000);

  it('never answers from the cache while a visible session is live (D-50: the document follows as_of)', async () => {
    const sessionId = randomUUID();
    await primed();
    await written(() => publisher.publish(SessionChanged, change(sessionId, { startedAt: '2026-03-12T08:00:00.000Z' }), { key: ownerId }));
    const first = await ask(owner, { from: '2026-03-01', to: '2026-12-31', groupBy: [] });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const second = await ask(owner, { from: '2026-03-01', to: '2026-12-31', groupBy: [] });
    expect([first.hit, second.hit]).toEqual([false, false]);
    expect(second.doc.meta.totals.tracked_seconds as number).toBeGreaterThan(first.doc.meta.totals.tracked_seconds as number);
    // Closed, the summary is cached again.
    await written(() =>
      publisher.publish(
        SessionChanged,
        change(sessionId, {
          change: 'closed',
          state: 'closed',
          startedAt: '2026-03-12T08:00:00.000Z',
          closedAt: '2026-03-12T09:00:00.000Z',
          closedReason: 'explicit',
          changedAt: '2026-03-12T09:00:00.000Z',
          revision: 2,
        }),
        { key: ownerId },
      ),
    );
    await primed();
  }, 60_000);

  it('reads a summary grouped by member first in runs of members, one statement each over one snapshot: the document one statement gives', async () => {
    // Every kind of write above is in the projection by now (sessions, events, links, usage with its cost, a new zone).
    const service: { memberRuns: (...args: unknown[]) => unknown[][] } = app.get(ReportsService, { strict: false });
    const runs = jest.spyOn(service, 'memberRuns');
    const text = async (over: Partial<GetReportV1>): Promise<string> => withoutAsOf((await ask(owner, over)).text);
    const cases: Array<Partial<GetReportV1>> = [
      {},
      { from: '2026-01-01', to: '2026-12-31', groupBy: ['member', 'week'] },
      { groupBy: ['member', 'work_type'] },
      { groupBy: ['member'], tz: 'UTC' },
      { groupBy: ['member', 'day'], filters: { workType: 'reactive' } },
      { format: 'csv' },
    ];
    config.REPORT_CACHE_BYTES = 0;
    try {
      for (const over of cases) {
        config.REPORT_SUMMARY_STATEMENTS = 1;
        const one = await text(over);
        config.REPORT_SUMMARY_STATEMENTS = 2;
        config.REPORT_SUMMARY_MEMBERS_PER_STATEMENT = 1;
        runs.mockClear();
        const split = await text(over);
        expect(runs.mock.results.map((r) => (r.value as unknown[][]).length)).toEqual([2]);
        expect(split).toBe(one);
        expect(one).toMatch(over.format === 'csv' ? /\r\n.+\r\n.+/ : /"member_id":".+"member_id":"/);
      }
      // Several at once: one splits, the others read in one statement meanwhile; every answer is the same document.
      const one = await text({});
      expect(await Promise.all([text({}), text({}), text({}), text({})])).toEqual([one, one, one, one]);
    } finally {
      config.REPORT_CACHE_BYTES = 64 * 1024 * 1024;
      config.REPORT_SUMMARY_STATEMENTS = 2;
      config.REPORT_SUMMARY_MEMBERS_PER_STATEMENT = 100;
      runs.mockRestore();
    }
  }, 60_000);
});
