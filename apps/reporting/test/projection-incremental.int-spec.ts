import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource, type EntityManager } from 'typeorm';
import type { MemberV1, SessionChangedV1, StoredEventRefV1, StoredUsageRefV1 } from '@worktrack/contracts';
import { ProjectionRepository, type Positioned, type Touched } from '../src/projection/projection.repository';
import { startReporting, type ReportingUnderTest } from './reporting-service';

const week = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };

/** The scenario's instants lie in this window (the Berlin DST change of 2026-03-29 01:00Z inside it). */
const WINDOW_LO = Date.parse('2026-03-27T20:00:00.000Z');
const WINDOW_HI = Date.parse('2026-03-30T06:00:00.000Z');

/** A small deterministic generator (mulberry32), so a failing order can be replayed from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Message =
  | { topic: 'sessions'; payload: SessionChangedV1 }
  | { topic: 'events'; payload: { memberId: string; workspaceId: string; events: StoredEventRefV1[] } }
  | { topic: 'links'; payload: { memberId: string; links: Array<{ eventId: string; sessionId: string | null; version: number }> } }
  | { topic: 'usage'; payload: { memberId: string; workspaceId: string; usage: StoredUsageRefV1[] } }
  | { topic: 'usageLinks'; payload: { memberId: string; links: Array<{ usageId: string; sessionId: string | null; version: number }> } }
  | { topic: 'members'; payload: MemberV1 };

/**
 * The hot topics (EventsStored, EventsLinked, UsageStored, UsageLinked) add
 * differences to the buckets instead of recomputing them (ADR 0018). A
 * random history of every topic — events, the same batches again at new
 * offsets, links before their events, relinks, usage with and without its
 * own session and its links, sessions across midnight and DST with pauses, a
 * back-dated close, new keys, overlapping manual blocks, a live session, a
 * zone change — is applied in several shuffled orders, in calls of several
 * messages, with redeliveries of whole calls; after every call the hour, day
 * and week buckets equal a recompute of everything from the facts.
 */
describe('reporting projection: incremental buckets equal a recompute from the facts (ADR 0018)', () => {
  let app: NestFastifyApplication;
  let projection: ProjectionRepository;
  let db: DataSource;
  let reporting: ReportingUnderTest | undefined;

  beforeAll(async () => {
    reporting = await startReporting('reporting_incremental');
    app = reporting.app;
    projection = app.get(ProjectionRepository);
    db = app.get(DataSource);
  }, 120_000);

  afterAll(async () => {
    await reporting?.close();
  });

  /** A history of three members (Berlin then New York; Kolkata; no member state: UTC), each message once, in generation order. */
  function history(random: () => number, workspaceId: string, memberIds: string[]): Message[] {
    const out: Message[] = [];
    const at = (ms: number) => new Date(ms).toISOString();
    const instant = () => WINDOW_LO + Math.floor(random() * (WINDOW_HI - WINDOW_LO));
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
    const projects = [randomUUID(), randomUUID()];
    const member = (memberId: string, timezone: string, version: number): MemberV1 => ({
      memberId,
      workspaceId,
      kind: 'human',
      role: 'member',
      displayName: 'M',
      email: null,
      timezone,
      workingHours: week,
      plateCapacity: 6,
      version,
    });
    const [a, b, c] = memberIds;
    out.push({ topic: 'members', payload: member(a, 'Europe/Berlin', 1) });
    out.push({ topic: 'members', payload: member(a, 'America/New_York', 2) });
    out.push({ topic: 'members', payload: member(b, 'Asia/Kolkata', 1) });
    for (const memberId of [a, b, c]) {
      const base = { memberId, workspaceId, intentText: 'x', userTags: [] as string[] };
      const change = (
        sessionId: string,
        revision: number,
        change: SessionChangedV1['change'],
        fields: Partial<SessionChangedV1> & Pick<SessionChangedV1, 'startedAt' | 'state'>,
      ): Message => ({
        topic: 'sessions',
        payload: {
          ...base,
          sessionId,
          revision,
          change,
          source: 'timer',
          closedAt: null,
          closedReason: null,
          changedAt: fields.startedAt,
          workType: 'intentional',
          projectId: null,
          goalId: null,
          ...fields,
        },
      });
      // A timer across midnight and the DST change, paused and resumed, closed, then its close back-dated.
      const timer = randomUUID();
      const t0 = Date.parse('2026-03-28T21:10:00.000Z');
      const t1 = Date.parse('2026-03-29T03:40:00.000Z');
      const timerFields = { startedAt: at(t0), workType: 'reactive' as const, projectId: projects[0] };
      out.push(change(timer, 1, 'created', { ...timerFields, state: 'active' }));
      out.push(change(timer, 2, 'paused', { ...timerFields, state: 'paused', changedAt: '2026-03-28T22:50:00.000Z' }));
      out.push(change(timer, 3, 'resumed', { ...timerFields, state: 'active', changedAt: '2026-03-29T00:20:00.000Z' }));
      out.push(
        change(timer, 4, 'closed', { ...timerFields, state: 'closed', changedAt: at(t1), closedAt: at(t1), closedReason: 'explicit' }),
      );
      out.push(
        change(timer, 5, 'backdated', {
          ...timerFields,
          state: 'closed',
          changedAt: at(t1 + 60_000),
          closedAt: '2026-03-29T02:05:00.000Z',
          closedReason: 'explicit',
        }),
      );
      // Two overlapping manual blocks; the second one's project and work type change in a later revision.
      const manual1 = randomUUID();
      const manual2 = randomUUID();
      out.push(
        change(manual1, 1, 'created', {
          source: 'manual',
          state: 'closed',
          startedAt: '2026-03-29T09:00:00.000Z',
          closedAt: '2026-03-29T11:00:00.000Z',
          changedAt: '2026-03-29T11:00:00.000Z',
        }),
      );
      const m2 = {
        source: 'manual' as const,
        state: 'closed' as const,
        startedAt: '2026-03-29T10:30:00.000Z',
        closedAt: '2026-03-29T12:15:00.000Z',
      };
      out.push(change(manual2, 1, 'created', { ...m2, changedAt: m2.closedAt }));
      out.push(
        change(manual2, 2, 'closed', { ...m2, changedAt: '2026-03-29T12:30:00.000Z', workType: 'reactive', projectId: projects[1] }),
      );
      // A live session: its events count under its keys, its time is never in buckets.
      const live = randomUUID();
      out.push(change(live, 1, 'created', { state: 'active', startedAt: '2026-03-30T01:00:00.000Z', projectId: projects[1] }));
      // A session the projection never hears of: its events count as linked, with '' keys.
      const unknown = randomUUID();
      const sessions = [timer, manual1, manual2, live, unknown, null];

      const eventIds: string[] = [];
      for (let batch = 0; batch < 4; batch++) {
        const events = Array.from({ length: 3 + Math.floor(random() * 6) }, (): StoredEventRefV1 => {
          const eventId = randomUUID();
          eventIds.push(eventId);
          return { eventId, occurredAt: at(instant()), sourceType: 'ci', eventType: 'build' };
        });
        const stored: Message = { topic: 'events', payload: { memberId, workspaceId, events } };
        out.push(stored, stored); // the outbox relays at least once: the same batch at a new offset
      }
      const links: Array<{ eventId: string; sessionId: string | null; version: number }> = [];
      for (const eventId of eventIds) {
        links.push({ eventId, sessionId: pick(sessions), version: 1 });
        if (random() < 0.4) links.push({ eventId, sessionId: pick(sessions), version: 2 });
        if (random() < 0.2) links.push({ eventId, sessionId: pick(sessions), version: 3 });
      }
      for (let i = 0; i < links.length; i += 5) out.push({ topic: 'links', payload: { memberId, links: links.slice(i, i + 5) } });
      // A link of an event that is never stored: a row without an instant that counts nowhere.
      out.push({ topic: 'links', payload: { memberId, links: [{ eventId: randomUUID(), sessionId: timer, version: 1 }] } });

      const usage: StoredUsageRefV1[] = Array.from({ length: 6 }, (_, i) => ({
        usageId: randomUUID(),
        occurredAt: at(instant()),
        provider: 'anthropic',
        model: 'm',
        operation: 'chat',
        inputTokens: 1 + Math.floor(random() * 1000),
        outputTokens: i % 3 === 0 ? null : Math.floor(random() * 100),
        cacheReadInputTokens: null,
        cacheCreationInputTokens: null,
        reasoningOutputTokens: null,
        cost: i === 5 ? null : `0.${String(Math.floor(random() * 1e6)).padStart(6, '0')}`,
        currency: 'USD',
        costSource: i === 5 ? 'none' : 'reported',
        sessionId: i % 2 === 0 ? pick([timer, manual2, live]) : null, // D-48: its own session, final
      }));
      out.push({ topic: 'usage', payload: { memberId, workspaceId, usage: usage.slice(0, 3) } });
      out.push({ topic: 'usage', payload: { memberId, workspaceId, usage: usage.slice(3) } });
      out.push({ topic: 'usage', payload: { memberId, workspaceId, usage: usage.slice(2, 4) } }); // redelivered at a new offset
      for (const u of usage) {
        // Correlation links every record; a link of a record with its own session must not move it (D-48).
        const ul = [{ usageId: u.usageId, sessionId: pick(sessions), version: 1 }];
        if (random() < 0.5) ul.push({ usageId: u.usageId, sessionId: pick(sessions), version: 2 });
        out.push({ topic: 'usageLinks', payload: { memberId, links: ul } });
      }
    }
    return out;
  }

  const shuffle = <T>(xs: T[], random: () => number): T[] => {
    const out = [...xs];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  };

  /** One call of one topic's messages, applied as the projection service applies them; the hot topics touch no range. */
  async function apply(topic: Message['topic'], messages: Array<Positioned<Message['payload']>>): Promise<void> {
    const hot = async (touched: Promise<Touched[]>): Promise<Touched[]> => {
      expect(await touched).toEqual([]); // no recompute: the buckets move by differences only
      return [];
    };
    const memberOf = (p: Message['payload']) => p.memberId;
    await projection.consume(
      messages,
      async (m: EntityManager, fresh, consumed) => {
        switch (topic) {
          case 'sessions':
            return projection.sessions(m, fresh as SessionChangedV1[]);
          case 'members': {
            const touched: Touched[] = [];
            for (const member of fresh as MemberV1[]) touched.push(...(await projection.member(m, member)));
            return touched;
          }
          case 'events':
            return hot(
              projection.events(
                m,
                (fresh as Array<Extract<Message, { topic: 'events' }>['payload']>).map((b) => ({
                  memberId: b.memberId,
                  workspaceId: b.workspaceId,
                  items: b.events,
                })),
                consumed,
              ),
            );
          case 'usage':
            return hot(
              projection.usage(
                m,
                (fresh as Array<Extract<Message, { topic: 'usage' }>['payload']>).map((b) => ({
                  memberId: b.memberId,
                  workspaceId: b.workspaceId,
                  items: b.usage,
                })),
                consumed,
              ),
            );
          case 'links':
            return hot(projection.eventLinks(m, fresh as Array<Extract<Message, { topic: 'links' }>['payload']>, consumed));
          case 'usageLinks':
            return hot(projection.usageLinks(m, fresh as Array<Extract<Message, { topic: 'usageLinks' }>['payload']>, consumed));
        }
      },
      memberOf,
    );
  }

  /** Every bucket row of the members, hour, day and week, with every column (the cost without trailing zeros). */
  const snapshot = (m: EntityManager | DataSource, members: string[]) =>
    m.query<Array<Record<string, string>>>(
      ['hour', 'day', 'week']
        .map(
          (
            g,
          ) => `SELECT '${g}' AS g, workspace_id, member_id, bucket::text AS bucket, work_type, project_id, goal_id, tracked_ms, paused_ms,
                         session_count, linked_event_count, outside_session_event_count, trim_scale(usage_cost)::text AS usage_cost,
                         input_tokens, output_tokens
                    FROM reporting.${g}_buckets WHERE member_id = ANY($1::uuid[])`,
        )
        .join(' UNION ALL ') + ' ORDER BY 1, 3, 4, 5, 6, 7',
      [members],
    );

  /** The members' buckets as `recompute` writes them from the facts alone: every row deleted, the whole window recomputed; rolled back. */
  async function recomputed(workspaceId: string, members: string[]): Promise<Array<Record<string, string>>> {
    const runner = db.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      for (const table of ['hour_buckets', 'day_buckets', 'week_buckets'])
        await runner.query(`DELETE FROM reporting.${table} WHERE member_id = ANY($1::uuid[])`, [members]);
      await projection.recompute(
        runner.manager,
        members.map((memberId) => ({ memberId, workspaceId, lo: new Date(WINDOW_LO - 86_400_000), hi: new Date(WINDOW_HI + 86_400_000) })),
      );
      return await snapshot(runner.manager, members);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  }

  it.each([1, 2, 3, 4])(
    'order %i: after every call the buckets equal a recompute from the facts',
    async (seed) => {
      const random = rng(seed * 7919);
      const workspaceId = randomUUID();
      const members = [randomUUID(), randomUUID(), randomUUID()];
      const messages = shuffle(history(random, workspaceId, members), random);
      const run = randomUUID();
      const offsets = new Map<string, number>();
      const previous = new Map<string, Array<Positioned<Message['payload']>>>();
      let calls = 0;
      for (let i = 0; i < messages.length;) {
        // One call: the next run of messages of one topic (1–4 of them), at the topic's next offsets.
        const topic = messages[i].topic;
        const call: Array<Positioned<Message['payload']>> = [];
        while (i < messages.length && messages[i].topic === topic && call.length < 1 + Math.floor(random() * 4)) {
          const offset = offsets.get(topic) ?? 0;
          offsets.set(topic, offset + 1);
          call.push({ topic: `${run}-${topic}`, partition: 0, offset: String(offset), payload: messages[i].payload });
          i++;
        }
        await apply(topic, call);
        // Now and then a call is delivered again at the same offsets (a consumer restarted before committing): skipped.
        const again = previous.get(topic);
        if (again && random() < 0.2) await apply(topic, again);
        previous.set(topic, call);
        calls++;
        expect({ calls, rows: await snapshot(db, members) }).toEqual({ calls, rows: await recomputed(workspaceId, members) });
      }

      // The history reached the buckets: every event stored counts once (linked or outside), the sessions' time and the usage too.
      const stored = new Set(messages.flatMap((x) => (x.topic === 'events' ? x.payload.events.map((e) => e.eventId) : [])));
      const [totals] = await db.query<
        Array<{ events: string; linked: string; outside: string; tracked: string; sessions: string; tokens: string }>
      >(
        `SELECT sum(linked_event_count + outside_session_event_count) AS events, sum(linked_event_count) AS linked,
              sum(outside_session_event_count) AS outside, sum(tracked_ms) AS tracked, sum(session_count) AS sessions, sum(input_tokens) AS tokens
         FROM reporting.day_buckets WHERE member_id = ANY($1::uuid[])`,
        [members],
      );
      const usage = messages.flatMap((x) => (x.topic === 'usage' ? x.payload.usage : []));
      const tokens = new Map(usage.map((u) => [u.usageId, u.inputTokens ?? 0]));
      expect(Number(totals.events)).toBe(stored.size);
      expect(Number(totals.linked)).toBeGreaterThan(0);
      expect(Number(totals.outside)).toBeGreaterThan(0);
      expect(Number(totals.sessions)).toBe(3 * 3); // the timer and two manual blocks per member; the live one is not in buckets
      expect(Number(totals.tracked)).toBeGreaterThan(0);
      expect(Number(totals.tokens)).toBe([...tokens.values()].reduce((a, b) => a + b, 0));
      // The comparison sees a difference of one count in one row.
      await db.query(
        `UPDATE reporting.day_buckets SET linked_event_count = linked_event_count + 1
        WHERE (member_id, bucket, work_type, project_id, goal_id) IN (
          SELECT member_id, bucket, work_type, project_id, goal_id FROM reporting.day_buckets WHERE member_id = ANY($1::uuid[]) LIMIT 1)`,
        [members],
      );
      expect(await snapshot(db, members)).not.toEqual(await recomputed(workspaceId, members));
    },
    120_000,
  );
});
