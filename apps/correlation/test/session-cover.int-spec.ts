import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import {
  allTopics,
  EventsStored,
  FindSessionCover,
  MAX_COVER_SESSIONS_PER_MEMBER,
  SessionChanged,
  Topics,
  type EventsLinkedV1,
  type SessionChangedV1,
} from '@worktrack/contracts';
import { CommandClient, ensureTopics, startService, type RunningConsumer } from '@worktrack/platform';
import { eventually, MessagePublisher, ownNamespace, testConfig, testKafka, type TestKafka } from '@worktrack/testing';
import { CorrelationAppModule } from '../src/app.module';
import { CorrelationConfig } from '../src/correlation.config';

const MINUTE = 60_000;
const HOURS = 60 * MINUTE;
const t0 = Date.parse('2026-03-02T09:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();

/** Correlation's side of the link audit (ADR 0016): the session cover command and replayed EventsStored. */
describe('correlation: the link audit', () => {
  let app: NestFastifyApplication;
  let kafka: TestKafka;
  let rpc: CommandClient;
  let publisher: MessagePublisher;
  let db: DataSource;
  let watcher: RunningConsumer;
  const published: Array<{ key: string; body: EventsLinkedV1 }> = [];
  let dropDatabase: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    // A topic namespace and a database of its own: another spec file's correlation must not relay this one's outbox.
    const { prefix, env, drop } = await ownNamespace('cover');
    dropDatabase = drop;
    kafka = testKafka('cover-it', env);
    await ensureTopics(await kafka.client.admin(), allTopics(), prefix);
    app = await startService('correlation', CorrelationAppModule, testConfig(CorrelationConfig, env));
    db = app.get(DataSource);
    rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 10_000 });
    await rpc.start();
    publisher = new MessagePublisher(kafka.client);
    watcher = await kafka.client.startConsumer({
      groupId: kafka.client.group(`links-watch-${randomUUID()}`),
      topics: [kafka.client.topic(Topics.correlationLinks)],
      fromBeginning: true,
      concurrency: 1,
      eachMessage: ({ message }) => {
        published.push({ key: message.key?.toString('utf8') ?? '', body: JSON.parse(String(message.value)) as EventsLinkedV1 });
        return Promise.resolve();
      },
    });
  }, 60_000);

  afterAll(async () => {
    await watcher?.stop();
    await rpc?.stop();
    await kafka?.close();
    await app?.close();
    await dropDatabase?.();
  });

  const session = (memberId: string, workspaceId: string, startedAt: number, closedAt: number | null): SessionChangedV1 => ({
    change: 'created',
    sessionId: randomUUID(),
    memberId,
    workspaceId,
    source: 'manual',
    state: closedAt === null ? 'active' : 'closed',
    startedAt: iso(startedAt),
    closedAt: closedAt === null ? null : iso(closedAt),
    closedReason: null,
    revision: 1,
    changedAt: iso(startedAt),
  });
  const known = (ids: string[]) =>
    eventually(
      async () =>
        (await db.query<unknown[]>('SELECT 1 FROM "correlation"."sessions" WHERE session_id = ANY($1::uuid[])', [ids])).length ===
        ids.length,
      'correlation knows the sessions',
    );
  const linksOf = (memberId: string) => published.filter((p) => p.body.memberId === memberId).flatMap((p) => p.body.links);

  it('answers the sessions overlapping each range in start order, and cuts a long list with where it stops being complete', async () => {
    const workspaceId = randomUUID();
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    // a: one before the range, one across its start, one inside, one live from inside; b: more than a reply carries; c: none.
    const sa = [
      session(a, workspaceId, t0 - 60 * MINUTE, t0 - 30 * MINUTE),
      session(a, workspaceId, t0 - 10 * MINUTE, t0 + 5 * MINUTE),
      session(a, workspaceId, t0 + 10 * MINUTE, t0 + 20 * MINUTE),
      session(a, workspaceId, t0 + 30 * MINUTE, null),
    ];
    const sb = Array.from({ length: MAX_COVER_SESSIONS_PER_MEMBER + 5 }, (_, i) =>
      session(b, workspaceId, t0 + i * MINUTE, t0 + i * MINUTE + 30_000),
    );
    await publisher.publishMany(SessionChanged, [
      ...sa.map((payload) => ({ payload, key: a })),
      ...sb.map((payload) => ({ payload, key: b })),
    ]);
    await known([...sa, ...sb].map((s) => s.sessionId));

    const reply = await rpc.send(
      FindSessionCover,
      {
        members: [
          { memberId: a, from: iso(t0), to: iso(t0 + 40 * MINUTE) },
          { memberId: b, from: iso(t0), to: iso(t0 + 2 * HOURS) },
          { memberId: c, from: iso(t0), to: iso(t0 + 40 * MINUTE) },
        ],
      },
      { key: a },
    );
    expect(reply.members.map((m) => m.memberId)).toEqual([a, b, c]);
    expect(reply.members[0]).toEqual({
      memberId: a,
      sessions: sa.slice(1).map((s) => ({ sessionId: s.sessionId, startedAt: s.startedAt, closedAt: s.closedAt })),
      completeUntil: null,
    });
    expect(reply.members[1].sessions.map((s) => s.sessionId)).toEqual(sb.slice(0, MAX_COVER_SESSIONS_PER_MEMBER).map((s) => s.sessionId));
    expect(reply.members[1].completeUntil).toBe(sb[MAX_COVER_SESSIONS_PER_MEMBER].startedAt);
    expect(reply.members[2]).toEqual({ memberId: c, sessions: [], completeUntil: null });
  });

  it('publishes again the current link of held events for a replay, links the new ones, and a plain repeat publishes nothing', async () => {
    const memberId = randomUUID();
    const workspaceId = randomUUID();
    const s = session(memberId, workspaceId, t0 - 60 * MINUTE, null);
    await publisher.publish(SessionChanged, s, { key: memberId });
    await known([s.sessionId]);
    const [e1, e2, e3] = [randomUUID(), randomUUID(), randomUUID()];
    const outside = randomUUID();
    const ref = (eventId: string, at = t0) => ({ eventId, occurredAt: iso(at) });
    await publisher.publish(
      EventsStored,
      { memberId, workspaceId, events: [ref(e1), ref(e2), ref(outside, t0 - 2 * 60 * MINUTE)] },
      { key: memberId },
    );
    await eventually(() => linksOf(memberId).length === 2, 'the first links');
    expect(linksOf(memberId)).toEqual(
      expect.arrayContaining([
        { eventId: e1, sessionId: s.sessionId, version: 1 },
        { eventId: e2, sessionId: s.sessionId, version: 1 },
      ]),
    );

    // A plain repeat is a no-op; a replay of e1 (held), e3 (never seen) and `outside` (held, never linked) ...
    await publisher.publish(EventsStored, { memberId, workspaceId, events: [ref(e1)] }, { key: memberId });
    await publisher.publish(
      EventsStored,
      { memberId, workspaceId, events: [ref(e1), ref(e3), ref(outside, t0 - 2 * 60 * MINUTE)], replay: true },
      { key: memberId },
    );
    // ... publishes e1's link again as it was and links e3; `outside` has no link to send.
    await eventually(() => linksOf(memberId).length === 4, 'the replay answered');
    await new Promise((r) => setTimeout(r, 1_000));
    const links = linksOf(memberId);
    expect(links).toHaveLength(4);
    expect(links.filter((l) => l.eventId === e1)).toEqual([
      { eventId: e1, sessionId: s.sessionId, version: 1 },
      { eventId: e1, sessionId: s.sessionId, version: 1 },
    ]);
    expect(links.find((l) => l.eventId === e3)).toEqual({ eventId: e3, sessionId: s.sessionId, version: 1 });
    expect(links.some((l) => l.eventId === outside)).toBe(false);
    expect(published.filter((p) => p.body.memberId === memberId).every((p) => p.key === memberId)).toBe(true);
  });

  it('corrects a held link D-31 no longer gives when it is replayed, with a new version', async () => {
    const memberId = randomUUID();
    const workspaceId = randomUUID();
    const s = session(memberId, workspaceId, t0 - 60 * MINUTE, null);
    await publisher.publish(SessionChanged, s, { key: memberId });
    await known([s.sessionId]);
    const e = randomUUID();
    await publisher.publish(EventsStored, { memberId, workspaceId, events: [{ eventId: e, occurredAt: iso(t0) }] }, { key: memberId });
    await eventually(() => linksOf(memberId).length === 1, 'the first link');
    // A row that went wrong somehow (never by the handlers, which hold the member's lock).
    await db.query('UPDATE "correlation"."events" SET session_id = NULL WHERE event_id = $1', [e]);
    await publisher.publish(
      EventsStored,
      { memberId, workspaceId, events: [{ eventId: e, occurredAt: iso(t0) }], replay: true },
      { key: memberId },
    );
    await eventually(() => linksOf(memberId).length === 2, 'the corrected link');
    expect(linksOf(memberId)[1]).toEqual({ eventId: e, sessionId: s.sessionId, version: 2 });
  });
});
