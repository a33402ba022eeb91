import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import {
  EventsLinked,
  Header,
  EventsStored,
  SessionChanged,
  Topics,
  UsageLinked,
  UsageStored,
  type EventsLinkedV1,
  type StoredUsageRefV1,
  type UsageLinkedV1,
} from '@worktrack/contracts';
import { context as otelContext, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { markTracingEnabled, parseTraceparent, startService, TRACEPARENT_HEADER, withKafkaSpan } from '@worktrack/platform';
import {
  base,
  eventually,
  expectedLinks,
  iso,
  MessagePublisher,
  MINUTE,
  prng,
  readTopic,
  scenario,
  shuffle,
  testConfig,
  testKafka,
  type TestKafka,
} from '@worktrack/testing';
import { CorrelationConfig } from '../src/correlation.config';
import { CorrelationAppModule } from '../src/app.module';
import { LINKS_PER_MESSAGE } from '../src/links/links.publisher';
import { LinksRepository } from '../src/links/links.repository';

/** Correlation through real Kafka and Postgres. */
describe('correlation: links are right whatever the order (D-31)', () => {
  let app: NestFastifyApplication;
  let kafka: TestKafka;
  let publisher: MessagePublisher;
  let db: DataSource;

  beforeAll(async () => {
    const config = testConfig(CorrelationConfig);
    app = await startService('correlation', CorrelationAppModule, config);
    kafka = testKafka('correlation-it');
    publisher = new MessagePublisher(kafka.client);
    db = app.get(DataSource);
  });

  afterAll(async () => {
    await kafka?.close();
    await app?.close();
  });

  const links = async (memberId: string): Promise<Map<string, string | null>> => {
    const rows = await db.query<Array<{ event_id: string; session_id: string | null }>>(
      'SELECT event_id, session_id FROM "correlation"."events" WHERE member_id = $1',
      [memberId],
    );
    return new Map(rows.map((r) => [r.event_id, r.session_id]));
  };

  it('matches the reference for random interleavings, delivered in random order with duplicates', async () => {
    const seed = Number(process.env.CORRELATION_SEED ?? Date.now() % 1_000_000);
    const rand = prng(seed);
    const scenarios = Array.from({ length: 12 }, () => scenario(rand));
    // Every message once, a quarter of them twice, all in one random order (events in random batches).
    const sends: Array<() => Promise<void>> = [];
    for (const s of scenarios) {
      const batches: Array<Array<{ eventId: string; occurredAt: string }>> = [];
      for (const e of s.events) {
        if (batches.length === 0 || rand() < 0.35) batches.push([]);
        batches[batches.length - 1].push(e);
      }
      for (const events of batches) {
        const send = () =>
          publisher.publish(EventsStored, { memberId: s.memberId, workspaceId: s.workspaceId, events }, { key: s.memberId });
        sends.push(send);
        if (rand() < 0.25) sends.push(send);
      }
      for (const change of s.changes) {
        const send = () => publisher.publish(SessionChanged, change, { key: s.memberId });
        sends.push(send);
        if (rand() < 0.25) sends.push(send);
      }
    }
    for (const send of shuffle(sends, rand)) await send();

    const deadline = Date.now() + 30_000;
    for (const s of scenarios) {
      const expected = expectedLinks(s);
      let actual = await links(s.memberId);
      while (!sameLinks(actual, expected) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        actual = await links(s.memberId);
      }
      expect({ seed, member: s.memberId, links: Object.fromEntries(actual) }).toEqual({
        seed,
        member: s.memberId,
        links: Object.fromEntries(expected),
      });
    }
  });

  it('publishes the links of a session covering thousands of events in bounded messages, in order', async () => {
    const memberId = randomUUID();
    const workspaceId = randomUUID();
    const sessionId = randomUUID();
    const count = 2 * LINKS_PER_MESSAGE + 500;
    const eventIds = Array.from({ length: count }, () => randomUUID());
    const seen = new Map<string, number>();
    const sizes: number[] = [];
    const consumer = await readTopic(kafka.client, EventsLinked, ({ bytes, payload }) => {
      if (payload.memberId !== memberId) return;
      sizes.push(bytes);
      for (const l of payload.links) seen.set(l.eventId, (seen.get(l.eventId) ?? 0) + 1);
    });
    try {
      for (let i = 0; i < count; i += 100) {
        const events = eventIds.slice(i, i + 100).map((eventId, k) => ({ eventId, occurredAt: iso(base + (i + k) * 1_000) }));
        await publisher.publish(EventsStored, { memberId, workspaceId, events }, { key: memberId });
      }
      await eventually(async () => (await links(memberId)).size === count, 'every event known', 30_000);
      await publisher.publish(
        SessionChanged,
        {
          change: 'created',
          sessionId,
          memberId,
          workspaceId,
          source: 'manual',
          state: 'closed',
          startedAt: iso(base - MINUTE),
          closedAt: iso(base + 3 * 3_600_000),
          closedReason: null,
          revision: 1,
          changedAt: iso(base),
        },
        { key: memberId },
      );
      await eventually(async () => [...(await links(memberId)).values()].every((s) => s === sessionId), 'every event linked', 30_000);
      await eventually(() => seen.size === count, 'every link published', 30_000);
      expect(sizes.length).toBeGreaterThanOrEqual(3);
      expect(Math.max(...sizes)).toBeLessThan(400_000);
    } finally {
      await consumer.stop();
    }
  });

  it('links the EventsStored of one fetch together and publishes each new link once, keyed by its member', async () => {
    const members: string[] = [randomUUID(), randomUUID()];
    const workspaceId = randomUUID();
    const sessions = new Map<string, string>(members.map((m) => [m, randomUUID()]));
    for (const memberId of members) {
      await publisher.publish(
        SessionChanged,
        {
          change: 'created',
          sessionId: sessions.get(memberId) as string,
          memberId,
          workspaceId,
          source: 'timer',
          state: 'active',
          startedAt: iso(base),
          closedAt: null,
          closedReason: null,
          revision: 1,
          changedAt: iso(base),
        },
        { key: memberId },
      );
    }
    await eventually(async () => {
      const rows = await db.query<unknown[]>('SELECT 1 FROM "correlation"."sessions" WHERE member_id = ANY($1::uuid[])', [members]);
      return rows.length === 2;
    }, 'both sessions known');
    const published: Array<{ key: string; body: EventsLinkedV1 }> = [];
    const consumer = await readTopic(kafka.client, EventsLinked, ({ key, payload }) => {
      if (members.includes(payload.memberId)) published.push({ key: key ?? '', body: payload });
    });
    try {
      // Five messages and a repeat, sent in one produce request: consecutive on their partitions.
      const batches = members.flatMap((memberId, m) =>
        Array.from({ length: 3 - m }, (_, b) => ({
          memberId,
          workspaceId,
          events: Array.from({ length: 4 }, (_, k) => ({ eventId: randomUUID(), occurredAt: iso(base + (b * 4 + k + 1) * 1_000) })),
        })),
      );
      await publisher.publishMany(
        EventsStored,
        [...batches, batches[0]].map((payload) => ({ payload, key: payload.memberId })),
      );
      const expected = new Map<string, string>(batches.flatMap((b) => b.events.map((e) => [e.eventId, b.memberId] as const)));
      await eventually(() => published.reduce((n, p) => n + p.body.links.length, 0) >= expected.size, 'every link published', 30_000);
      await new Promise((r) => setTimeout(r, 500)); // nothing more comes (the repeat links nothing)
      const all = published.flatMap((p) => p.body.links.map((l) => ({ ...l, key: p.key, memberId: p.body.memberId })));
      expect(all).toHaveLength(expected.size);
      for (const l of all) {
        expect(l.memberId).toBe(expected.get(l.eventId));
        expect(l.key).toBe(l.memberId);
        expect(l.sessionId).toBe(sessions.get(l.memberId));
        expect(l.version).toBe(1);
      }
      for (const memberId of members) {
        expect([...(await links(memberId)).values()].every((s) => s === sessions.get(memberId))).toBe(true);
      }
    } finally {
      await consumer.stop();
    }
  });

  it('links usage records that name no session like events and relinks both on a session change, as UsageLinked and EventsLinked (D-48)', async () => {
    const memberId = randomUUID();
    const workspaceId = randomUUID();
    const sessionId = randomUUID();
    const named = randomUUID();
    const record = (usageId: string, at: number, session: string | null): StoredUsageRefV1 => ({
      usageId,
      occurredAt: iso(base + at),
      provider: 'anthropic',
      model: 'claude-sonnet-4',
      operation: 'chat',
      inputTokens: 10,
      outputTokens: 5,
      cacheReadInputTokens: null,
      cacheCreationInputTokens: null,
      reasoningOutputTokens: null,
      cost: '0.000123',
      currency: 'USD',
      costSource: 'reported',
      sessionId: session,
    });
    const [early, late, own, eventId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const published: Array<{ type: string; key: string; body: EventsLinkedV1 | UsageLinkedV1 }> = [];
    const consumer = await kafka.client.startConsumer({
      groupId: kafka.client.group(`links-usage-${randomUUID()}`),
      topics: [kafka.client.topic(Topics.correlationLinks)],
      fromBeginning: true,
      concurrency: 1,
      eachMessage: async ({ message }) => {
        const body = JSON.parse(message.value?.toString('utf8') ?? '{}') as EventsLinkedV1 | UsageLinkedV1;
        if (body.memberId !== memberId) return;
        published.push({ type: message.headers?.['wt-type']?.toString() ?? '', key: message.key?.toString('utf8') ?? '', body });
        await Promise.resolve();
      },
    });
    const usageLinks = () =>
      published
        .filter((p) => p.type === UsageLinked.type)
        .flatMap((p) => (p.body as UsageLinkedV1).links.map((l) => ({ ...l, key: p.key })));
    const eventLinks = () =>
      published
        .filter((p) => p.type === EventsLinked.type)
        .flatMap((p) => (p.body as EventsLinkedV1).links.map((l) => ({ ...l, key: p.key })));
    try {
      // Before any session: the record without a session and the event are held unlinked, the named record is not held.
      await publisher.publish(
        UsageStored,
        { memberId, workspaceId, usage: [record(early, 1_000, null), record(own, 1_500, named)] },
        { key: memberId },
      );
      await publisher.publish(
        EventsStored,
        { memberId, workspaceId, events: [{ eventId, occurredAt: iso(base + 2_000) }] },
        { key: memberId },
      );
      await eventually(async () => (await links(memberId)).size === 2, 'the record and the event held');
      const kinds = await db.query<Array<{ event_id: string; kind: number }>>(
        'SELECT event_id, kind FROM "correlation"."events" WHERE member_id = $1',
        [memberId],
      );
      expect(Object.fromEntries(kinds.map((k) => [k.event_id, k.kind]))).toEqual({ [early]: 1, [eventId]: 0 });

      // A session covering both: one statement relinks them, each announced in a message of its own kind.
      await publisher.publish(
        SessionChanged,
        {
          change: 'created',
          sessionId,
          memberId,
          workspaceId,
          source: 'timer',
          state: 'active',
          startedAt: iso(base),
          closedAt: null,
          closedReason: null,
          revision: 1,
          changedAt: iso(base),
        },
        { key: memberId },
      );
      await eventually(() => usageLinks().length === 1 && eventLinks().length === 1, 'both links published', 30_000);

      // A record stored later is linked on arrival (link_usage).
      await publisher.publish(UsageStored, { memberId, workspaceId, usage: [record(late, 3_000, null)] }, { key: memberId });
      await eventually(() => usageLinks().length === 2, 'the late record linked', 30_000);
      await new Promise((r) => setTimeout(r, 500)); // nothing more comes
      expect(usageLinks()).toEqual([
        { usageId: early, sessionId, version: 1, key: memberId },
        { usageId: late, sessionId, version: 1, key: memberId },
      ]);
      expect(eventLinks()).toEqual([{ eventId, sessionId, version: 1, key: memberId }]);
      expect((await links(memberId)).get(own)).toBeUndefined();
    } finally {
      await consumer.stop();
    }
  });

  it("writes the calling consumer's trace context on its link rows, sampled or not, and the relay sends it on", async () => {
    const memberId = randomUUID();
    const sessionId = randomUUID();
    const repository = app.get(LinksRepository);
    const outbox = { linksPerMessage: LINKS_PER_MESSAGE, requestId: null };
    const sampled = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const unsampled = '00-4bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b8-00';
    const usage = randomUUID();
    const received: Array<{ type: string; traceparent: string | undefined; ids: string[] }> = [];
    const consumer = await kafka.client.startConsumer({
      groupId: kafka.client.group(`links-trace-${randomUUID()}`),
      topics: [kafka.client.topic(Topics.correlationLinks)],
      fromBeginning: true,
      concurrency: 1,
      eachMessage: ({ message }) => {
        const body = JSON.parse(String(message.value)) as { memberId: string; links: Array<{ eventId?: string; usageId?: string }> };
        if (body.memberId === memberId) {
          const header = message.headers?.[TRACEPARENT_HEADER];
          received.push({
            type: String(message.headers?.[Header.type]),
            traceparent: header === undefined ? undefined : String(header),
            ids: body.links.map((l) => l.eventId ?? l.usageId ?? ''),
          });
        }
        return Promise.resolve();
      },
    });
    otelContext.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    markTracingEnabled(true, true);
    try {
      const change = (revision: number, closedAt: string | null) => ({ sessionId, memberId, startedAt: iso(base), closedAt, revision });
      await repository.applySessionChange(change(1, null), outbox);
      const [early, late] = [randomUUID(), randomUUID()];
      // Inside a sampled span (an EventsStored consumer's), the new links carry it.
      const inSampled = <T>(fn: () => Promise<T>) => otelContext.with(trace.setSpanContext(ROOT_CONTEXT, parseTraceparent(sampled)!), fn);
      await inSampled(() =>
        repository.linkEvents(
          [
            { memberId, eventId: early, occurredAt: iso(base + 1_000) },
            { memberId, eventId: late, occurredAt: iso(base + 5_000) },
          ],
          outbox,
        ),
      );
      await inSampled(() => repository.linkUsage([{ memberId, eventId: usage, occurredAt: iso(base + 2_000) }], outbox));
      // Under an unsampled parent (no span made), the relinks of a session change carry that parent as it came.
      await withKafkaSpan('process sessions.session.changed', { relation: 'child', traceparents: [unsampled] }, () =>
        repository.applySessionChange(change(2, iso(base + 3_000)), outbox),
      );
      await eventually(() => received.length === 3, 'three link messages', 30_000);
      expect(received).toEqual([
        { type: EventsLinked.type, traceparent: sampled, ids: [early, late].sort() },
        { type: UsageLinked.type, traceparent: sampled, ids: [usage] },
        { type: EventsLinked.type, traceparent: unsampled, ids: [late] },
      ]);
    } finally {
      markTracingEnabled(false);
      otelContext.disable();
      await consumer.stop();
    }
  });

  it('sends a poison message to the dead-letter topic and keeps going', async () => {
    const producer = await kafka.client.producer();
    const memberId = randomUUID();
    await producer.send({
      topic: kafka.client.topic({ name: 'sessions.events', partitions: 12, retentionMs: 0, description: '' }),
      messages: [
        { key: memberId, value: JSON.stringify({ change: 'exploded' }), headers: { 'wt-type': SessionChanged.type, 'wt-version': '1' } },
      ],
    });
    const eventId = randomUUID();
    const sessionId = randomUUID();
    await publisher.publish(
      SessionChanged,
      {
        change: 'created',
        sessionId,
        memberId,
        workspaceId: randomUUID(),
        source: 'timer',
        state: 'active',
        startedAt: iso(base),
        closedAt: null,
        closedReason: null,
        revision: 1,
        changedAt: iso(base),
      },
      { key: memberId },
    );
    await publisher.publish(
      EventsStored,
      { memberId, workspaceId: randomUUID(), events: [{ eventId, occurredAt: iso(base + MINUTE) }] },
      { key: memberId },
    );
    const deadline = Date.now() + 15_000;
    while ((await links(memberId)).get(eventId) !== sessionId && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect((await links(memberId)).get(eventId)).toBe(sessionId);
    const text = await (await fetch(`http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/metrics`)).text();
    expect(text).toMatch(/worktrack_kafka_messages_total\{[^}]*type="sessions.session.changed"[^}]*outcome="dead_lettered"[^}]*\} [1-9]/);
  });
});

function sameLinks(a: Map<string, string | null>, b: Map<string, string | null>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of b) if (a.get(k) !== v) return false;
  return true;
}
