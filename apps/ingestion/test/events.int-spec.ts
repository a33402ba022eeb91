import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { EventsStored, Header, IngestEvents, ListEvents, type ActorV1, type ActivityEventInputV1 } from '@worktrack/contracts';
import { CommandClient, DomainError, startService, type RunningConsumer } from '@worktrack/platform';
import { eventually, readTopic, testConfig, testKafka, type TestKafka } from '@worktrack/testing';
import { IngestionConfig } from '../src/ingestion.config';
import { IngestionAppModule } from '../src/app.module';

const actorOf = (memberId: string = randomUUID(), workspaceId: string = randomUUID()): ActorV1 => ({
  memberId,
  workspaceId,
  scope: 'full',
  credential: 'api_token',
});
const ev = (over: Partial<ActivityEventInputV1> = {}): ActivityEventInputV1 => ({
  sourceType: 'custom',
  eventType: 'deploy',
  occurredAt: new Date().toISOString(),
  payload: { n: 1 },
  ...over,
});

/** The ingestion service through its real command topic, Postgres and outbox. */
describe('ingestion: activity events', () => {
  let app: NestFastifyApplication;
  let kafka: TestKafka;
  let rpc: CommandClient;
  const stored: Array<{ memberId: string; eventIds: string[]; requestId?: string }> = [];
  let reader: RunningConsumer;

  const ingest = (actor: ActorV1, events: ActivityEventInputV1[]) =>
    rpc.send(IngestEvents, { actor, receivedAt: new Date().toISOString(), events }, { key: actor.memberId });

  beforeAll(async () => {
    app = await startService('ingestion', IngestionAppModule, testConfig(IngestionConfig));
    kafka = testKafka('ingestion-it');
    rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 10_000 });
    await rpc.start();
    reader = await readTopic(kafka.client, EventsStored, ({ headers, payload }) =>
      stored.push({ memberId: payload.memberId, eventIds: payload.events.map((e) => e.eventId), requestId: headers[Header.requestId] }),
    );
  });

  afterAll(async () => {
    await reader?.stop();
    await rpc?.stop();
    await kafka?.close();
    await app?.close();
  });

  it('stores a batch, one id per event in order, and publishes the new events once, after the commit', async () => {
    const actor = actorOf();
    const result = await ingest(actor, [ev({ externalId: 'a' }), ev(), ev({ externalId: 'b', sourceType: 'ci' })]);
    expect(result.accepted).toBe(3);
    expect(result.deduplicated).toBe(0);
    expect(new Set(result.eventIds).size).toBe(3);
    await eventually(() => stored.some((s) => s.memberId === actor.memberId), 'the stored-events message');
    const published = stored.filter((s) => s.memberId === actor.memberId).flatMap((s) => s.eventIds);
    expect(published).toEqual(result.eventIds);
  });

  it('deduplicates within a batch and across requests: the first write wins, duplicates hold its id (D-15, D-16)', async () => {
    const actor = actorOf();
    const first = await ingest(actor, [
      ev({ externalId: 'x', payload: { v: 1 } }),
      ev({ externalId: 'x', payload: { v: 2 } }),
      ev({ externalId: 'y' }),
    ]);
    expect(first).toMatchObject({ accepted: 2, deduplicated: 1 });
    expect(first.eventIds[1]).toBe(first.eventIds[0]);
    const again = await ingest(actor, [ev({ externalId: 'y' }), ev({ externalId: 'z' }), ev({ externalId: 'x', payload: { v: 3 } }), ev()]);
    expect(again).toMatchObject({ accepted: 2, deduplicated: 2 });
    expect(again.eventIds[0]).toBe(first.eventIds[2]);
    expect(again.eventIds[2]).toBe(first.eventIds[0]);
    // Same external id under another source type, or for another member, is another event.
    const otherSource = await ingest(actor, [ev({ externalId: 'x', sourceType: 'github' })]);
    expect(otherSource.deduplicated).toBe(0);
    const otherMember = await ingest(actorOf(), [ev({ externalId: 'x' })]);
    expect(otherMember.eventIds[0]).not.toBe(first.eventIds[0]);
    // The first write's payload was kept.
    const page = await rpc.send(ListEvents, { actor, limit: 100 }, { key: actor.memberId });
    expect(page.events.find((e) => e.eventId === first.eventIds[0])?.payload).toEqual({ v: 1 });
    expect(page.events).toHaveLength(5); // x, y, z, one without external id, github:x
  });

  it('stores one event when concurrent requests race on the same key', async () => {
    const actor = actorOf();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => ingest(actor, [ev({ externalId: 'race', payload: { i } })])));
    expect(new Set(results.map((r) => r.eventIds[0])).size).toBe(1);
    expect(results.filter((r) => r.accepted === 1)).toHaveLength(1);
    expect(results.filter((r) => r.deduplicated === 1)).toHaveLength(19);
    const page = await rpc.send(ListEvents, { actor, limit: 100 }, { key: actor.memberId });
    expect(page.events).toHaveLength(1);
  });

  it('gives a redelivered command the same ids and stores nothing twice, even without external ids', async () => {
    const actor = actorOf();
    const events = [ev(), ev({ externalId: 'k' })];
    const receivedAt = new Date().toISOString();
    // The same command twice with one message id: what Kafka redelivers after a crash before the commit of the offset.
    const { EventsService } = await import('../src/events/events.service');
    const events1 = app.get(EventsService);
    const a = await events1.ingest({ actor, receivedAt, events }, 'message-1');
    const b = await events1.ingest({ actor, receivedAt, events }, 'message-1');
    expect(b.eventIds).toEqual(a.eventIds);
    expect(b).toMatchObject({ accepted: 2, deduplicated: 0 });
    const page = await rpc.send(ListEvents, { actor, limit: 100 }, { key: actor.memberId });
    expect(page.events).toHaveLength(2);
  });

  it('lists the timeline newest first with filters and a keyset cursor that never skips or repeats (D-21)', async () => {
    const actor = actorOf();
    const base = Date.parse('2026-03-01T12:00:00.000Z');
    const batch = Array.from({ length: 25 }, (_, i) =>
      ev({
        occurredAt: new Date(base + Math.floor(i / 2) * 60_000).toISOString(),
        sourceType: i % 3 === 0 ? 'ci' : 'custom',
        eventType: i % 2 ? 'test' : 'deploy',
      }),
    );
    await ingest(actor, batch);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await rpc.send(ListEvents, { actor, limit: 7, ...(cursor ? { cursor } : {}) }, { key: actor.memberId });
      seen.push(...page.events.map((e) => e.eventId));
      // Events arriving while paging (newer than everything) never enter later pages.
      if (!cursor) await ingest(actor, [ev({ occurredAt: new Date().toISOString() })]);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    const all = await rpc.send(ListEvents, { actor, limit: 100 }, { key: actor.memberId });
    const times = all.events.map((e) => Date.parse(e.occurredAt));
    expect([...times].sort((x, y) => y - x)).toEqual(times);

    const ci = await rpc.send(ListEvents, { actor, limit: 100, sourceType: 'ci' }, { key: actor.memberId });
    expect(ci.events.every((e) => e.sourceType === 'ci')).toBe(true);
    expect(ci.events).toHaveLength(9);
    const window = await rpc.send(
      ListEvents,
      { actor, limit: 100, from: '2026-03-01T12:02:00Z', to: '2026-03-01T12:04:00+00:00', eventType: 'deploy' },
      { key: actor.memberId },
    );
    expect(window.events.map((e) => e.occurredAt).sort()).toEqual(['2026-03-01T12:02:00.000Z', '2026-03-01T12:03:00.000Z']);

    // Another member's timeline does not show these events; a cursor is bound to its filters.
    expect((await rpc.send(ListEvents, { actor: actorOf(actor.memberId, randomUUID()), limit: 100 }, { key: 'x' })).events).toHaveLength(0);
    const first = await rpc.send(ListEvents, { actor, limit: 2, sourceType: 'ci' }, { key: actor.memberId });
    const err = await rpc
      .send(ListEvents, { actor, limit: 2, sourceType: 'custom', cursor: first.nextCursor! }, { key: actor.memberId })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('INVALID_CURSOR');
    const tampered = `${first.nextCursor!.slice(0, -2)}xx`;
    await expect(
      rpc.send(ListEvents, { actor, limit: 2, sourceType: 'ci', cursor: tampered }, { key: actor.memberId }),
    ).rejects.toMatchObject({
      code: 'INVALID_CURSOR',
    });
  });
});
