import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { EventsStored, SessionChanged, type SessionChangedV1 } from '@worktrack/contracts';
import { MessagePublisher, startService } from '@worktrack/platform';
import { testConfig, testKafka, type TestKafka } from '@worktrack/testing';
import { CorrelationConfig } from '../src/correlation.config';
import { correlationService } from '../src/correlation.service-definition';

/** A small seeded PRNG (mulberry32), so a failing scenario can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Interval {
  sessionId: string;
  startedAt: number;
  closedAt: number | null;
}

/** D-31 as plainly as it can be said: the latest-started session whose [start, close) holds t. */
export function referenceLink(sessions: Interval[], t: number): string | null {
  const covering = sessions.filter((s) => s.startedAt <= t && (s.closedAt === null || t < s.closedAt));
  covering.sort((x, y) => y.startedAt - x.startedAt || (y.sessionId > x.sessionId ? 1 : -1));
  return covering[0]?.sessionId ?? null;
}

interface Scenario {
  memberId: string;
  workspaceId: string;
  /** Every revision of every session, in the order they happened. */
  changes: SessionChangedV1[];
  events: Array<{ eventId: string; occurredAt: string }>;
  finalSessions: Interval[];
}

const MINUTE = 60_000;
const base = Date.parse('2026-04-01T08:00:00.000Z');
const iso = (t: number): string => new Date(t).toISOString();

function scenario(rand: () => number): Scenario {
  const memberId = randomUUID();
  const workspaceId = randomUUID();
  const changes: SessionChangedV1[] = [];
  const finalSessions: Interval[] = [];
  const sessionCount = 1 + Math.floor(rand() * 5);
  for (let i = 0; i < sessionCount; i++) {
    const sessionId = randomUUID();
    const startedAt = base + Math.floor(rand() * 240) * MINUTE;
    const manual = rand() < 0.3;
    const change = (revision: number, kind: SessionChangedV1['change'], closedAt: number | null): SessionChangedV1 => ({
      change: kind,
      sessionId,
      memberId,
      workspaceId,
      source: manual ? 'manual' : 'timer',
      state: closedAt === null ? 'active' : 'closed',
      startedAt: iso(startedAt),
      closedAt: closedAt === null ? null : iso(closedAt),
      closedReason: closedAt === null ? null : 'explicit',
      revision,
      changedAt: iso(startedAt),
    });
    if (manual) {
      const closedAt = startedAt + (5 + Math.floor(rand() * 90)) * MINUTE;
      changes.push(change(1, 'created', closedAt));
      finalSessions.push({ sessionId, startedAt, closedAt });
      continue;
    }
    changes.push(change(1, 'created', null));
    let revision = 1;
    if (rand() < 0.5) changes.push(change(++revision, 'paused', null), change(++revision, 'resumed', null));
    const fate = rand();
    if (fate < 0.2) {
      finalSessions.push({ sessionId, startedAt, closedAt: null }); // still live
      continue;
    }
    let closedAt = startedAt + (10 + Math.floor(rand() * 120)) * MINUTE;
    changes.push(change(++revision, fate < 0.6 ? 'closed' : 'auto_closed', closedAt));
    if (rand() < 0.3) {
      // A back-dated close that now excludes later events.
      closedAt = startedAt + Math.floor(((closedAt - startedAt) / MINUTE) * rand()) * MINUTE;
      changes.push(change(++revision, 'backdated', closedAt));
    }
    finalSessions.push({ sessionId, startedAt, closedAt });
  }
  const events = Array.from({ length: 10 + Math.floor(rand() * 25) }, () => ({
    eventId: randomUUID(),
    occurredAt: iso(base - 30 * MINUTE + Math.floor(rand() * 420) * MINUTE),
  }));
  return { memberId, workspaceId, changes, events, finalSessions };
}

function shuffle<T>(items: T[], rand: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/** Correlation through real Kafka and Postgres. */
describe('correlation: links are right whatever the order (D-31)', () => {
  let app: NestFastifyApplication;
  let kafka: TestKafka;
  let publisher: MessagePublisher;
  let db: DataSource;

  beforeAll(async () => {
    const config = testConfig(CorrelationConfig);
    app = await startService(correlationService, config);
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
      const expected = new Map(s.events.map((e) => [e.eventId, referenceLink(s.finalSessions, Date.parse(e.occurredAt))]));
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
