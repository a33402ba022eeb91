import { randomUUID } from 'node:crypto';
import { IsInt, IsString } from 'class-validator';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { allTopics, defineMessage, EventsLinked, Header, Topics } from '@worktrack/contracts';
import { createLogger, createServiceDataSource, ensureTopics, KafkaClient, Metrics, migrate, readHeaders, withLogContext } from '../src';
import { enqueue } from '../src/outbox/outbox';
import { takeOutboxViolations } from '../src/outbox/outbox-check';
import { OutboxRelay, type OutboxRelayOptions } from '../src/outbox/outbox-relay';
import { addOutboxTraceparent, compressOutboxPayloads, createOutboxTable, dropOutboxTable } from '../src/outbox/outbox-table';
import { eventually, platformTestClient } from './helpers';

class TickV1 {
  @IsString() memberId!: string;
  @IsInt() seq!: number;
}
// Test messages ride a topic of this file's own namespace (no service reads it).
const Tick = defineMessage({ type: 'test.outbox', version: 1, topic: 'plateCommands', payload: TickV1 });

const tag = randomUUID().slice(0, 6);
const prefix = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}ob${tag}.`;
const schema = `outbox_test_${tag}`;

/** What a service's own migrations do: create the outbox in its schema, with the trace context column, its payloads compressed with lz4. */
class OutboxTest1763750000100 implements MigrationInterface {
  name = 'OutboxTest1763750000100';
  async up(queryRunner: QueryRunner): Promise<void> {
    await createOutboxTable(queryRunner, schema);
    await addOutboxTraceparent(queryRunner, schema);
    await compressOutboxPayloads(queryRunner, schema);
  }
  down(queryRunner: QueryRunner): Promise<void> {
    return dropOutboxTable(queryRunner, schema);
  }
}

interface Received {
  key: string;
  seq: number;
  memberId: string;
  messageId: string;
  requestId?: string;
  type: string;
  version: string;
}

const clients: KafkaClient[] = [];
const dataSources: DataSource[] = [];
const received: Received[] = [];
let db: DataSource;

function client(name: string, topicPrefix = prefix): KafkaClient {
  const c = platformTestClient(name, topicPrefix);
  clients.push(c);
  return c;
}

/** One replica's DataSource; the application name lets a test find its connections. */
async function dataSource(name: string): Promise<DataSource> {
  const ds = createServiceDataSource({
    url: process.env.DATABASE_URL ?? '',
    schema,
    entities: [],
    migrations: [OutboxTest1763750000100],
    applicationName: `${schema}.${name}`,
  });
  await ds.initialize();
  dataSources.push(ds);
  return ds;
}

/** `Tick` is this spec's own contract, not one of the product's, so these relays do not verify rows against the product's contracts. */
function relay(ds: DataSource, kafka: KafkaClient, metrics: Metrics, opts: OutboxRelayOptions = { pollIntervalMs: 50 }): OutboxRelay {
  return new OutboxRelay(ds, kafka, createLogger('outbox', process.env.LOG_LEVEL ?? 'silent', kafka.instanceId), metrics, {
    verifyRows: false,
    ...opts,
  });
}

/** Enqueues `count` ticks per key in one committed transaction, keys interleaved; returns their message ids. */
async function enqueueTicks(keys: string[], from: number, count: number): Promise<string[]> {
  const ids: string[] = [];
  await db.transaction(async (manager) => {
    for (let seq = from; seq < from + count; seq++) {
      for (const key of keys) {
        const messageId = randomUUID();
        ids.push(messageId);
        await enqueue(manager, Tick, { memberId: key, seq }, { key, messageId });
      }
    }
  });
  return ids;
}

const seqsOf = (key: string): number[] => received.filter((m) => m.key === key).map((m) => m.seq);
const range = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from + i);
const outboxRows = async (): Promise<number> =>
  (await db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM "${schema}".outbox`))[0].n;

/** The relay deletes rows just after the broker acknowledged them (and the reader may see them first). */
async function outboxDrained(timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await outboxRows()) > 0) {
    if (Date.now() > deadline) throw new Error(`outbox still holds ${await outboxRows()} rows after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function metricValue(metrics: Metrics, name: string): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  return (await metric.get()).values.reduce((sum, v) => sum + v.value, 0);
}

/** Reads every message of the prefix's test topic into `into`. */
async function startReader(kafka: KafkaClient, topicPrefix: string, into: Received[]): Promise<() => Promise<void>> {
  const consumer = kafka.kafka.consumer({ groupId: `${topicPrefix}outbox-reader`, sessionTimeout: 6_000, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: `${topicPrefix}${Topics.plateCommands.name}`, fromBeginning: true });
  await consumer.run({
    eachMessage: ({ message }) => {
      const headers = readHeaders(message.headers);
      const payload = JSON.parse(message.value?.toString('utf8') ?? '{}') as TickV1;
      into.push({
        key: message.key?.toString('utf8') ?? '',
        seq: payload.seq,
        memberId: payload.memberId,
        messageId: headers[Header.messageId] ?? '',
        requestId: headers[Header.requestId],
        type: headers[Header.type] ?? '',
        version: headers[Header.version] ?? '',
      });
      return Promise.resolve();
    },
  });
  return () => consumer.disconnect();
}

let stopReader: () => Promise<void>;

beforeAll(async () => {
  await ensureTopics(await client('setup').admin(), allTopics(), prefix);
  db = await dataSource('test');
  expect(await migrate(db)).toEqual(['OutboxTest1763750000100']);
  stopReader = await startReader(client('reader'), prefix, received);
});

afterAll(async () => {
  await stopReader?.();
  await db?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await Promise.allSettled(dataSources.map((ds) => ds.destroy()));
  await Promise.allSettled(clients.map((c) => c.close()));
});

describe('transactional outbox', () => {
  it('has a migration that matches the entity exactly (no drift) and can be undone', async () => {
    expect((await db.driver.createSchemaBuilder().log()).upQueries.map((q) => q.query)).toEqual([]);
    const columns = await db.query<Array<{ column_name: string; data_type: string; is_nullable: string; column_default: string | null }>>(
      `SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = $1 AND table_name = 'outbox' ORDER BY ordinal_position`,
      [schema],
    );
    expect(columns.map((c) => [c.column_name, c.data_type, c.is_nullable, c.column_default])).toEqual([
      ['id', 'bigint', 'NO', "nextval('outbox_id_seq'::regclass)"], // search_path is the schema
      ['topic', 'text', 'NO', null],
      ['key', 'text', 'NO', null],
      ['type', 'text', 'NO', null],
      ['version', 'integer', 'NO', null],
      ['message_id', 'uuid', 'NO', null],
      ['request_id', 'text', 'YES', null],
      ['payload', 'jsonb', 'NO', null],
      ['created_at', 'timestamp with time zone', 'NO', 'now()'],
      ['traceparent', 'text', 'YES', null],
    ]);

    await db.undoLastMigration();
    expect(await db.query(`SELECT to_regclass('"${schema}"."outbox"') AS t`)).toEqual([{ t: null }]);
    expect(await migrate(db)).toEqual(['OutboxTest1763750000100']);
    expect((await db.driver.createSchemaBuilder().log()).upQueries.map((q) => q.query)).toEqual([]);
  });

  it('refuses an invalid payload at enqueue, and an enqueue outside a transaction', async () => {
    const invalid = { memberId: 'bad', seq: 'one' } as unknown as TickV1;
    await expect(db.transaction((manager) => enqueue(manager, Tick, invalid, { key: 'bad' }))).rejects.toThrow(
      /ContractViolation|test\.outbox\.v1: seq/,
    );
    await expect(
      db.transaction((manager) => enqueue(manager, Tick, { memberId: 'bad', seq: 1, extra: 1 } as TickV1, { key: 'bad' })),
    ).rejects.toThrow(/extra/);
    await expect(enqueue(db.manager, Tick, { memberId: 'bad', seq: 1 }, { key: 'bad' })).rejects.toThrow(/transaction/);
    // A row its topic could never take would block the relay for every key: refused in the writer's transaction.
    await expect(
      db.transaction((manager) => enqueue(manager, Tick, { memberId: 'x'.repeat(1_100_000), seq: 1 }, { key: 'big' })),
    ).rejects.toThrow(/exceeds plate\.commands's 1048588-byte limit/);
    expect(await outboxRows()).toBe(0);
  });

  it('publishes what committed, in order per key, with the contract headers, and deletes it; a rollback publishes nothing', async () => {
    const metrics = new Metrics('outbox-a');
    // A long poll: what follows is published because the commits NOTIFY the relay.
    const r = relay(await dataSource('a'), client('relay-a'), metrics, { pollIntervalMs: 60_000, batchSize: 7 });
    r.start();
    try {
      await eventually(() => r.holdsLock, 'the relay to take the lock');
      const keys = [`a1-${tag}`, `a2-${tag}`];
      const rolledBack = `rolled-${tag}`;
      await expect(
        db.transaction(async (manager) => {
          await enqueue(manager, Tick, { memberId: rolledBack, seq: 1 }, { key: rolledBack });
          throw new Error('business rule failed');
        }),
      ).rejects.toThrow('business rule failed');
      const messageId = randomUUID();
      await withLogContext({ requestId: `req-${tag}` }, () =>
        db.transaction((manager) => enqueue(manager, Tick, { memberId: keys[0], seq: 0 }, { key: keys[0], messageId })),
      );
      await enqueueTicks(keys, 1, 20);

      await eventually(() => seqsOf(keys[0]).length === 21 && seqsOf(keys[1]).length === 20, 'every committed tick published');
      expect(seqsOf(keys[0])).toEqual(range(0, 21));
      expect(seqsOf(keys[1])).toEqual(range(1, 20));
      expect(received.find((m) => m.messageId === messageId)).toEqual({
        key: keys[0],
        seq: 0,
        memberId: keys[0],
        messageId,
        requestId: `req-${tag}`,
        type: 'test.outbox',
        version: '1',
      });
      await outboxDrained();
      expect(r.holdsLock).toBe(true);
      expect(seqsOf(rolledBack)).toEqual([]);
      expect(await metricValue(metrics, 'worktrack_outbox_published_total')).toBe(41);
      expect(await metricValue(metrics, 'worktrack_outbox_publish_failures_total')).toBe(0);
      expect(await metricValue(metrics, 'worktrack_outbox_pending')).toBe(0);
    } finally {
      await r.stop();
    }
    expect(r.holdsLock).toBe(false);
  });

  it('publishes, after a restart, what committed while no relay ran (death between commit and publish)', async () => {
    const keys = [`b1-${tag}`, `b2-${tag}`, `b3-${tag}`];
    await enqueueTicks(keys, 1, 30);
    // Nothing relays: the rows wait, durable, in the table.
    const metrics = new Metrics('outbox-b');
    const r = relay(await dataSource('b'), client('relay-b'), metrics, { pollIntervalMs: 50, batchSize: 25 });
    expect(await metricValue(metrics, 'worktrack_outbox_pending')).toBe(90);
    expect(await outboxRows()).toBe(90);

    r.start(); // the process came back
    try {
      await eventually(() => keys.every((k) => seqsOf(k).length >= 30), 'the backlog published');
      for (const key of keys) expect(seqsOf(key)).toEqual(range(1, 30));
      await outboxDrained();
      expect(await metricValue(metrics, 'worktrack_outbox_published_total')).toBe(90);
    } finally {
      await r.stop();
    }
  });

  it("compresses a large payload with lz4 and relays the payload's text as the row holds it", async () => {
    const key = `z-${tag}`;
    // 40 KB that compresses, as a batch's stored message does: the row's payload is TOASTed.
    const memberId = Array.from({ length: 1_000 }, (_, i) => `member-${i}-${tag}`)
      .join(',')
      .padEnd(40_000, '.');
    await db.transaction((manager) => enqueue(manager, Tick, { memberId, seq: 1 }, { key }));
    const stored = await db.query<Array<{ method: string | null; bytes: number }>>(
      `SELECT pg_column_compression(payload) AS method, pg_column_size(payload) AS bytes FROM "${schema}".outbox WHERE key = $1`,
      [key],
    );
    expect(stored).toEqual([{ method: 'lz4', bytes: expect.any(Number) as number }]);
    expect(stored[0].bytes).toBeLessThan(20_000);
    const r = relay(await dataSource('z'), client('relay-z'), new Metrics('outbox-z'), { pollIntervalMs: 50 });
    r.start();
    try {
      await eventually(() => seqsOf(key).length === 1, 'the large row published');
      expect(received.find((m) => m.key === key)?.memberId).toBe(memberId);
      await outboxDrained();
    } finally {
      await r.stop();
    }
  });

  it('verifying, records a row that does not match its contract, whoever wrote it, and publishes it all the same', async () => {
    const metrics = new Metrics('outbox-v');
    const messageId = randomUUID();
    // A row written by hand, as a statement of its own could: `links` empty, `memberId` not a UUID.
    await db.query(
      `INSERT INTO "${schema}".outbox (topic, key, type, version, message_id, request_id, payload)
       VALUES ($1, 'v', $2, $3, $4, NULL, '{"memberId": "v", "links": []}'::jsonb)`,
      [EventsLinked.topic, EventsLinked.type, EventsLinked.version, messageId],
    );
    const r = relay(await dataSource('v'), client('relay-v'), metrics, { pollIntervalMs: 50, verifyRows: true });
    r.start();
    try {
      await outboxDrained();
    } finally {
      await r.stop();
    }
    const violations = takeOutboxViolations();
    expect(violations).toEqual([expect.objectContaining({ type: EventsLinked.type, version: 1, messageId })]);
    expect(violations[0].reason).toMatch(/memberId/);
    expect(violations[0].reason).toMatch(/links/);
  });

  it("wakes on the commit's NOTIFY: what another connection enqueued is published with no poll", async () => {
    const metrics = new Metrics('outbox-n');
    // Neither a poll nor a safety read within the test: only the NOTIFY can wake the relay.
    const r = relay(await dataSource('n'), client('relay-n'), metrics, { pollIntervalMs: 120_000 });
    r.start();
    try {
      await eventually(() => r.holdsLock, 'the relay to take the lock');
      await new Promise((resolve) => setTimeout(resolve, 300)); // the first (empty) read is over: the relay sleeps
      const keys = [`n1-${tag}`, `n2-${tag}`];
      await enqueueTicks(keys, 1, 5); // `db`: another DataSource, as another process would write
      await eventually(() => keys.every((k) => seqsOf(k).length === 5), 'the notified rows published', 10_000);
      for (const key of keys) expect(seqsOf(key)).toEqual(range(1, 5));
      await enqueueTicks(keys, 6, 2); // and again: the relay listens on after a batch
      await eventually(() => keys.every((k) => seqsOf(k).length === 7), 'the second commit published', 10_000);
      await outboxDrained();
    } finally {
      await r.stop();
    }
  });

  it('relays from one replica at a time; another takes over when the holder stops or its lock connection dies', async () => {
    const replicas = await Promise.all(
      ['c1', 'c2'].map(async (name) => {
        const ds = await dataSource(name);
        return { name, ds, relay: relay(ds, client(`relay-${name}`), new Metrics(`outbox-${name}`)) };
      }),
    );
    for (const { relay: r } of replicas) r.start();
    const holder = async (): Promise<(typeof replicas)[number]> => {
      await eventually(() => replicas.some((x) => x.relay.holdsLock), 'a replica to hold the lock');
      const holders = replicas.filter((x) => x.relay.holdsLock);
      expect(holders).toHaveLength(1);
      return holders[0];
    };
    const keys = [`c1-${tag}`, `c2-${tag}`, `c3-${tag}`];
    const sent: string[] = [];
    let next = 1;
    /** Enqueues a round of ticks (five transactions) and waits until each is published, exactly once, in order. */
    const round = async (): Promise<void> => {
      for (let t = 0; t < 5; t++, next += 10) {
        sent.push(...(await enqueueTicks(keys, next, 10)));
      }
      await eventually(() => keys.every((k) => seqsOf(k).length >= next - 1), `ticks up to ${next - 1} published`);
      for (const key of keys) expect(seqsOf(key)).toEqual(range(1, next - 1));
      const ids = received.filter((m) => keys.includes(m.key)).map((m) => m.messageId);
      expect(ids.sort()).toEqual([...sent].sort()); // each exactly once
      await outboxDrained();
    };

    try {
      const first = await holder();
      await round();

      // The holder's lock connection dies (network, Postgres restart): Postgres frees the lock.
      const killed = await db.query<Array<{ ok: boolean }>>(
        `SELECT pg_terminate_backend(l.pid) AS ok FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = $1`,
        [`${schema}.${first.name}`],
      );
      expect(killed).toEqual([{ ok: true }]);
      const second = replicas.find((x) => x !== first);
      // Well within the 30 s safety read: the dead connection wakes its relay.
      await eventually(() => second?.relay.holdsLock === true && !first.relay.holdsLock, 'the other replica to take over', 10_000);
      await round();

      // The holder stops (rolling deploy): the first replica, still trying, takes over again.
      await second?.relay.stop();
      await eventually(() => first.relay.holdsLock, 'the first replica to take over again');
      await round();
    } finally {
      await Promise.all(replicas.map(({ relay: r }) => r.stop()));
    }
  });

  it('keeps every row while Kafka refuses it, counts the failures, and publishes once it can', async () => {
    // A prefix whose topics do not exist yet (auto-creation is off): every send fails.
    const missing = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}ob${tag}x.`;
    const metrics = new Metrics('outbox-d');
    const r = relay(await dataSource('d'), client('relay-d', missing), metrics, { pollIntervalMs: 50 });
    const key = `d-${tag}`;
    await enqueueTicks([key], 1, 5);
    r.start();
    try {
      const deadline = Date.now() + 45_000;
      while ((await metricValue(metrics, 'worktrack_outbox_publish_failures_total')) === 0) {
        if (Date.now() > deadline) throw new Error('no publish failure counted');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(await outboxRows()).toBe(5);

      await ensureTopics(await client('setup-d', missing).admin(), allTopics(), missing);
      const got: Received[] = [];
      const stop = await startReader(client('reader-d', missing), missing, got);
      try {
        await eventually(() => got.length >= 5, 'the kept rows published', 45_000);
        expect(got.map((m) => m.seq)).toEqual(range(1, 5));
      } finally {
        await stop();
      }
      await outboxDrained();
    } finally {
      await r.stop();
    }
  }, 120_000);
});
