import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { allTopics, EventsStored, IngestEvents, SessionChanged, type ActorV1, type ActivityEventInputV1 } from '@worktrack/contracts';
import { CommandClient, ensureTopics, startService, type RunningConsumer } from '@worktrack/platform';
import {
  eventually,
  MessagePublisher,
  prng,
  readTopic,
  referenceLink,
  scenario,
  ownNamespace,
  startAppProcess,
  testConfig,
  testKafka,
  type AppProcess,
  type TestKafka,
} from '@worktrack/testing';
import { IngestionAppModule } from '../src/app.module';
import { IngestionConfig } from '../src/ingestion.config';
import { LinkAuditRepository } from '../src/events/link-audit.repository';
import { LinkAuditWorker, type LinkAuditPass } from '../src/events/link-audit.worker';

const HOUR = 3_600_000;

/**
 * The link audit (ADR 0016) against a real correlation process,
 * Kafka and Postgres: a link lost on either side heals after one pass, and
 * events outside every session are not re-announced. Ingestion runs in
 * process with its schedule off (LINK_AUDIT_INTERVAL_MS=0) and no settle
 * time, so each test runs a pass itself (`tick()`).
 */
describe('ingestion: the link audit heals lost links', () => {
  let ingestion: NestFastifyApplication;
  let correlation: AppProcess;
  let kafka: TestKafka;
  let rpc: CommandClient;
  let publisher: MessagePublisher;
  let db: DataSource;
  let audit: LinkAuditWorker;
  let reader: RunningConsumer;
  const replayed: Array<{ memberId: string; eventIds: string[] }> = [];
  let dropDatabase: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    // A topic namespace and a database of its own: other spec files' ingestion and correlation instances
    // neither take its messages nor relay its outboxes, nor audit its events.
    const { prefix, env, drop } = await ownNamespace('audit');
    dropDatabase = drop;
    kafka = testKafka('link-audit-it', env);
    await ensureTopics(await kafka.client.admin(), allTopics(), prefix);
    [correlation, ingestion] = await Promise.all([
      startAppProcess('correlation', env),
      startService(
        'ingestion',
        IngestionAppModule,
        testConfig(IngestionConfig, { ...env, LINK_AUDIT_INTERVAL_MS: '0', LINK_AUDIT_SETTLE_MS: '0' }),
      ),
    ]);
    db = ingestion.get(DataSource);
    audit = ingestion.get(LinkAuditWorker);
    rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 10_000 });
    await rpc.start();
    publisher = new MessagePublisher(kafka.client);
    reader = await readTopic(kafka.client, EventsStored, ({ payload }) => {
      if (payload.replay) replayed.push({ memberId: payload.memberId, eventIds: payload.events.map((e) => e.eventId) });
    });
  }, 120_000);

  afterAll(async () => {
    await reader?.stop();
    await rpc?.stop();
    await kafka?.close();
    await ingestion?.close();
    await correlation?.stop();
    await dropDatabase?.();
  });

  const actorOf = (): ActorV1 => ({ memberId: randomUUID(), workspaceId: randomUUID(), scope: 'full', credential: 'api_token' });
  const events = (count: number, at: number): ActivityEventInputV1[] =>
    Array.from({ length: count }, (_, i) => ({
      sourceType: 'custom',
      eventType: 'audit',
      occurredAt: new Date(at + i * 1_000).toISOString(),
      payload: { i },
    }));
  const ingest = async (actor: ActorV1, batch: ActivityEventInputV1[]): Promise<string[]> =>
    (await rpc.send(IngestEvents, { actor, receivedAt: new Date().toISOString(), events: batch }, { key: actor.memberId })).eventIds;
  /** A live session, as the sessions service announces it. */
  const startSession = async (actor: ActorV1, startedAt: number): Promise<string> => {
    const sessionId = randomUUID();
    await publisher.publish(
      SessionChanged,
      {
        change: 'created',
        sessionId,
        memberId: actor.memberId,
        workspaceId: actor.workspaceId,
        source: 'timer',
        state: 'active',
        startedAt: new Date(startedAt).toISOString(),
        closedAt: null,
        closedReason: null,
        revision: 1,
        changedAt: new Date().toISOString(),
      },
      { key: actor.memberId },
    );
    await eventually(
      async () => (await db.query<unknown[]>('SELECT 1 FROM "correlation"."sessions" WHERE session_id = $1', [sessionId])).length === 1,
      'correlation knows the session',
    );
    return sessionId;
  };
  const linksOf = async (ids: string[]): Promise<Array<string | null>> =>
    (
      await db.query<Array<{ id: string; session_id: string | null }>>(
        'SELECT id, session_id FROM "ingestion"."activity_events" WHERE id = ANY($1::uuid[]) ORDER BY id',
        [ids],
      )
    ).map((r) => r.session_id);
  const allLinkedTo = async (ids: string[], sessionId: string): Promise<boolean> => (await linksOf(ids)).every((s) => s === sessionId);
  /** `count` events of one new member written straight to the table; the SQL expressions may use `g` (1 … count). */
  const insertBulk = (count: number, occurredAt: string, receivedAt: string, payload: string): Promise<unknown> =>
    db.query(
      `INSERT INTO "ingestion"."activity_events" (id, workspace_id, member_id, source_type, event_type, occurred_at, received_at, payload)
       SELECT gen_random_uuid(), $1, $2, 'custom', 'bulk', ${occurredAt}, ${receivedAt}, ${payload}
         FROM generate_series(1, $3::int) AS g`,
      [randomUUID(), randomUUID(), count],
    );
  /** One pass over everything received so far (another replica's pass may hold the lease for a moment). */
  const pass = async (): Promise<LinkAuditPass> => {
    const since = Date.now();
    for (;;) {
      const done = await audit.tick();
      if (done.window && Date.parse(done.window.to) >= since) return done;
      if (Date.now() - since > 15_000) throw new Error('no audit pass covered the test events');
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  it('re-links events whose link was lost in ingestion (an EventsLinked never applied)', async () => {
    const actor = actorOf();
    const sessionId = await startSession(actor, Date.now() - HOUR);
    const ids = await ingest(actor, events(10, Date.now() - 10 * 60_000));
    await eventually(() => allLinkedTo(ids, sessionId), 'the events linked');
    await db.query('UPDATE "ingestion"."activity_events" SET session_id = NULL, link_version = 0 WHERE id = ANY($1::uuid[])', [ids]);

    const done = await pass();
    expect(done.mismatched).toBeGreaterThanOrEqual(10);
    await eventually(() => allLinkedTo(ids, sessionId), 'the lost links back');
    await eventually(() => replayed.some((r) => r.memberId === actor.memberId), 'the replay on ingestion.events');
    expect(new Set(replayed.filter((r) => r.memberId === actor.memberId).flatMap((r) => r.eventIds))).toEqual(new Set(ids));
  });

  it('stores and links events correlation never saw (an EventsStored never stored)', async () => {
    const actor = actorOf();
    const sessionId = await startSession(actor, Date.now() - HOUR);
    const ids = await ingest(actor, events(10, Date.now() - 5 * 60_000));
    await eventually(() => allLinkedTo(ids, sessionId), 'the events linked');
    // As if correlation had never stored the batch: it holds none of them, ingestion holds them unlinked.
    await db.query('DELETE FROM "correlation"."events" WHERE event_id = ANY($1::uuid[])', [ids]);
    await db.query('UPDATE "ingestion"."activity_events" SET session_id = NULL, link_version = 0 WHERE id = ANY($1::uuid[])', [ids]);

    const done = await pass();
    expect(done.mismatched).toBeGreaterThanOrEqual(10);
    await eventually(() => allLinkedTo(ids, sessionId), 'the events linked again');
    const held = await db.query<unknown[]>('SELECT 1 FROM "correlation"."events" WHERE event_id = ANY($1::uuid[])', [ids]);
    expect(held).toHaveLength(10);
  });

  it('re-announces nothing for events outside every session, and leaves them unlinked', async () => {
    const actor = actorOf();
    const ids = await ingest(actor, events(10, Date.now() - 60_000));
    await eventually(
      async () => (await db.query<unknown[]>('SELECT 1 FROM "correlation"."events" WHERE event_id = ANY($1::uuid[])', [ids])).length === 10,
      'correlation holds the events',
    );
    const done = await pass();
    expect(done.audited).toBeGreaterThanOrEqual(10);
    // A replay would be on the topic well within this (the relay is woken at commit).
    await new Promise((r) => setTimeout(r, 1_500));
    expect(replayed.filter((r) => r.memberId === actor.memberId)).toEqual([]);
    expect(await linksOf(ids)).toEqual(Array.from({ length: 10 }, () => null));
  });

  it("judges links exactly as D-31's reference does, overlaps and boundaries included (random scenarios)", async () => {
    const seed = Number(process.env.CORRELATION_SEED ?? Date.now() % 1_000_000);
    const rand = prng(seed);
    const scenarios = Array.from({ length: 12 }, () => scenario(rand));
    // Received long ago (no pass of the tests above reaches it): stored right, wrong, or unlinked at random.
    const window = { from: new Date('2020-01-01T00:00:00.000Z'), to: new Date('2020-01-01T00:01:00.000Z') };
    const wrongExpected = new Map<string, string | null>();
    for (const s of scenarios) {
      const rows = s.events.map((e) => {
        const right = referenceLink(s.finalSessions, Date.parse(e.occurredAt));
        const r = rand();
        const stored =
          r < 0.5 ? right : r < 0.75 ? null : (s.finalSessions[Math.floor(rand() * s.finalSessions.length)]?.sessionId ?? null);
        if (stored !== right) wrongExpected.set(e.eventId, right);
        return { ...e, stored };
      });
      await db.query(
        `INSERT INTO "ingestion"."activity_events" (id, workspace_id, member_id, source_type, event_type, occurred_at, received_at, payload, session_id, link_version)
         SELECT id, $2, $3, 'custom', 'reference', at, $4, '{}', sid, CASE WHEN sid IS NULL THEN 0 ELSE 1 END
           FROM unnest($1::uuid[], $5::timestamptz[], $6::uuid[]) AS t(id, at, sid)`,
        [
          rows.map((r) => r.eventId),
          s.workspaceId,
          s.memberId,
          '2020-01-01T00:00:30.000Z',
          rows.map((r) => r.occurredAt),
          rows.map((r) => r.stored),
        ],
      );
    }
    const wrong = await ingestion.get(LinkAuditRepository).mismatches(
      window,
      scenarios.map((s) => ({ memberId: s.memberId, until: null })),
      scenarios.flatMap((s) =>
        s.finalSessions.map((x) => ({
          memberId: s.memberId,
          sessionId: x.sessionId,
          startedAt: new Date(x.startedAt).toISOString(),
          closedAt: x.closedAt === null ? null : new Date(x.closedAt).toISOString(),
        })),
      ),
    );
    expect({ seed, wrong: new Map(wrong.map((w) => [w.id, w.expected])) }).toEqual({ seed, wrong: wrongExpected });
  });

  it('summarises the BRIN ranges filled since the last pass, so a window is read through the index, not the whole table', async () => {
    // Postgres summarises a BRIN range only at VACUUM; unsummarised, every pass scanned the whole table.
    await insertBulk(8000, `now() - interval '1 minute'`, 'now()', `jsonb_build_object('i', g)`);
    const summarize = `SELECT brin_summarize_new_values('"ingestion"."ix_activity_events_received_brin"'::regclass)::int AS ranges`;
    const [{ pages }] = await db.query<Array<{ pages: number }>>(
      `SELECT (pg_relation_size('"ingestion"."activity_events"') / current_setting('block_size')::int)::int AS pages`,
    );
    expect(pages).toBeGreaterThan(3 * 32); // three full ranges of 32 pages at least
    const done = await pass();
    expect(done.audited).toBeGreaterThanOrEqual(8000);
    expect(await db.query(summarize)).toEqual([{ ranges: 0 }]); // nothing left: the pass summarised them
  });

  it('reads a window through the BRIN index, never by a sequential scan, where Postgres holds no statistics for the table', async () => {
    // Never analysed (a new table; a Postgres without autovacuum never analyses one), the
    // planner priced the BRIN path as the whole table and scanned all of it at every pass.
    await insertBulk(
      20000,
      `now() - interval '2 days'`,
      `now() - interval '2 days' + g * interval '1 ms'`,
      `jsonb_build_object('i', g, 'pad', repeat('x', 200))`,
    );
    const repo = ingestion.get(LinkAuditRepository);
    const window = { from: new Date(Date.now() - 60_000), to: new Date() };
    const scans = await db.transaction(async (m) => {
      // The backend's counts since its last report (which never happens inside a transaction):
      // sequential scans of the table, scans of the BRIN index; read before and after the reads.
      const counts = async (): Promise<{ table: number; brin: number }> =>
        (
          await m.query<Array<{ table: number; brin: number }>>(
            `SELECT pg_stat_get_xact_numscans('"ingestion"."activity_events"'::regclass)::int AS "table",
                    pg_stat_get_xact_numscans('"ingestion"."ix_activity_events_received_brin"'::regclass)::int AS brin`,
          )
        )[0];
      const before = await counts();
      await repo.windowMembers(window.from, window.to, m);
      await repo.mismatches(window, [{ memberId: randomUUID(), until: null }], [], m);
      const after = await counts();
      return { table: after.table - before.table, brin: after.brin - before.brin };
    });
    expect(scans.table).toBe(0);
    expect(scans.brin).toBeGreaterThanOrEqual(1);
  });

  it('goes on without summarising while a VACUUM holds the table (lock_timeout), and summarises at the next pass', async () => {
    const repo = ingestion.get(LinkAuditRepository);
    const vacuum = db.createQueryRunner(); // stands in for a VACUUM: the same lock level on the table
    await vacuum.connect();
    try {
      await vacuum.startTransaction();
      await vacuum.query('LOCK TABLE "ingestion"."activity_events" IN SHARE UPDATE EXCLUSIVE MODE');
      const started = Date.now();
      await expect(repo.summarizeNewRanges()).resolves.toBeNull();
      expect(Date.now() - started).toBeLessThan(5_000);
      await vacuum.rollbackTransaction();
      await expect(repo.summarizeNewRanges()).resolves.toEqual(expect.any(Number));
    } finally {
      await vacuum.release();
    }
  });
});
