import { createHash } from 'node:crypto';
import { Inject, Injectable, Optional, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Message } from 'kafkajs';
import { Gauge, type Counter } from 'prom-client';
import { DataSource, type QueryRunner } from 'typeorm';
import { Topics, type TopicKey } from '@worktrack/contracts';
import { schemaOf, statementName } from '../database/data-source.factory';
import { KafkaClient } from '../kafka/kafka.client';
import { contractHeaders } from '../kafka/message';
import type { AppLogger } from '../logging/logger';
import { Metrics } from '../metrics/metrics';
import { LOGGER } from '../nest/tokens';
import { backoffMs } from '../work/backoff';
import { outboxRowViolation, recordOutboxViolation } from './outbox-check';
import { outboxChannel, outboxTable } from './outbox-table';

/**
 * One message waiting to be published: written in the same transaction as the
 * change it announces, deleted by the relay once the broker acknowledged it.
 * The table lives in the owning service's schema; `createOutboxTable` is its
 * one definition, and the relay reads it in `id` order through the primary key.
 */
interface OutboxRow {
  /** bigserial: insertion order, which is the publish order. pg returns int8 as a string. */
  id: string;
  /** The registry key (`Topics`), not the physical name: the prefix is the relay's. */
  topic: TopicKey;
  key: string;
  type: string;
  version: number;
  messageId: string;
  requestId: string | null;
  /**
   * The contract payload's JSON text, as it travels: Postgres writes the
   * jsonb out as text and the relay produces that text as it is, with no
   * parse and re-serialisation in between.
   */
  payload: string;
  /** The writer's W3C trace context, relayed as the message's `traceparent` (NULL: written outside a trace). */
  traceparent: string | null;
}

export interface OutboxRelayOptions {
  /**
   * How often a replica that does not relay tries to take the lock, and how
   * often the relaying one reads the outbox if it could not LISTEN (200 ms).
   */
  pollIntervalMs?: number;
  /** Rows read, published and deleted at a time (500). */
  batchSize?: number;
  /**
   * Checks every row against its contract before publishing it, logging and
   * recording (`takeOutboxViolations`) any that does not match; the row is
   * published all the same. Default: `OUTBOX_VERIFY_ROWS=true`, which the test
   * tiers set; production leaves it off (writers validate, or build rows from
   * the contract, and consumers validate what they receive).
   */
  verifyRows?: boolean;
}

/**
 * How often the relaying replica reads the outbox with no notification: a
 * safety net only, since every `enqueue` notifies at commit and a broken
 * LISTEN connection wakes the relay, whose failed query drops the lock; it
 * then takes it again, LISTENs and reads. 30 s: five relays each
 * reading every 5 s were most of an idle stack's queries.
 */
const SAFETY_POLL_MS = 30_000;
/**
 * How long the relay gathers notifications before it reads: under load one
 * read, produce and delete then carries the rows of many commits instead of
 * one round per commit.
 */
const NOTIFY_COALESCE_MS = 50;

type BatchOutcome = 'idle' | 'full' | 'failed';

const MAX_BACKOFF_MS = 30_000;

/**
 * Publishes the outbox of one schema to Kafka, oldest row first, and deletes
 * what the broker acknowledged (acks=all). At-least-once: a crash between
 * publish and delete publishes those rows again; consumers dedupe by
 * `wt-message-id`.
 *
 * One replica relays at a time: it holds a session-level advisory lock on a
 * connection of its own, and does all its reads and deletes on that
 * connection, so it stops as soon as that connection fails — which is when
 * Postgres frees the lock and another replica, still trying each poll, takes
 * over. Each relay keeps one connection of its DataSource's pool while it runs.
 *
 * A provider of the service's module that writes the outbox: it runs from
 * bootstrap until the module is destroyed (before connections close).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly pollIntervalMs: number;
  private readonly safetyPollMs: number;
  private coalescing?: NodeJS.Timeout;
  private readonly channel: string;
  private readonly batchSize: number;
  private readonly verifyRows: boolean;
  private readonly lockKey: string;
  private readonly selectSql: string;
  private readonly deleteSql: string;
  private readonly logger: AppLogger;
  private readonly publishedTotal: Counter<'topic'>;
  private readonly failuresTotal: Counter;
  private lock?: QueryRunner;
  private locked = false;
  /** The lock connection's pg client while it LISTENs to the outbox channel. */
  private listening?: NotifyingClient;
  private readonly onNotification = (): void => {
    this.coalescing ??= setTimeout(() => {
      this.coalescing = undefined;
      this.wakeUp();
    }, NOTIFY_COALESCE_MS);
  };
  /**
   * The lock connection failed or closed (Postgres restarted, the backend was
   * terminated): Postgres freed the lock with it. Read now, so that the failed
   * query drops the lock and the relay takes it again (or another replica
   * does) without waiting for the safety read.
   */
  private readonly onConnectionLost = (): void => this.wakeUp();
  private loop?: Promise<void>;
  private stopping = false;
  private notified = false;
  private backingOff = false;
  private wake?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly client: KafkaClient,
    @Inject(LOGGER) logger: AppLogger,
    metrics: Metrics,
    /** Tests set them (a long poll, a small batch); a service's module takes the defaults. */
    @Optional() opts: OutboxRelayOptions = {},
  ) {
    this.pollIntervalMs = opts.pollIntervalMs ?? 200;
    this.safetyPollMs = Math.max(SAFETY_POLL_MS, this.pollIntervalMs);
    this.batchSize = opts.batchSize ?? 500;
    this.verifyRows = opts.verifyRows ?? process.env.OUTBOX_VERIFY_ROWS === 'true';
    const schema = schemaOf(dataSource);
    this.channel = outboxChannel(schema);
    this.lockKey = advisoryLockKey(schema);
    // Plain SQL on the relay's connection, no query builder per read (ADR 0012
    // decision 2): the relay reads whenever it wakes, in every app.
    const table = outboxTable(schema);
    this.selectSql = `SELECT id, topic, key, type, version, message_id AS "messageId", request_id AS "requestId", payload::text AS payload, traceparent
       FROM ${table} ORDER BY id ASC LIMIT $1`;
    this.deleteSql = `DELETE FROM ${table} WHERE id = ANY($1::bigint[])`;
    this.logger = logger.child({ component: 'outbox-relay' });
    this.publishedTotal = metrics.counter(
      'worktrack_outbox_published_total',
      'Outbox messages published (acknowledged by the broker), by topic key.',
      ['topic'],
    );
    this.failuresTotal = metrics.counter(
      'worktrack_outbox_publish_failures_total',
      'Outbox publish attempts that failed (the rows stay and are retried).',
    );
    if (!metrics.registry.getSingleMetric('worktrack_outbox_pending')) {
      // One read per scrape for both gauges: the count, and the oldest row's age (0 when empty).
      const countSql = `SELECT count(*)::int AS n, coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS age FROM ${table}`;
      let scrape: Promise<Array<{ n: number; age: number }> | undefined> | undefined;
      const read = (): Promise<Array<{ n: number; age: number }> | undefined> => {
        scrape ??= dataSource
          .query<Array<{ n: number; age: number }>>(countSql)
          .catch(() => undefined)
          .finally(() => setImmediate(() => (scrape = undefined)));
        return scrape;
      };
      new Gauge({
        name: 'worktrack_outbox_pending',
        help: 'Outbox rows waiting to be published (counted at scrape time).',
        registers: [metrics.registry],
        async collect() {
          // Keeps the last value when Postgres does not answer; /metrics still serves.
          const rows = await read();
          if (rows) this.set(rows[0].n);
        },
      });
      new Gauge({
        name: 'worktrack_outbox_oldest_age_seconds',
        help: 'Age of the oldest outbox row waiting to be published, 0 when none (read at scrape time).',
        registers: [metrics.registry],
        async collect() {
          const rows = await read();
          if (rows) this.set(Number(rows[0].age));
        },
      });
    }
  }

  /** True while this replica is the one relaying. */
  get holdsLock(): boolean {
    return this.locked;
  }

  onApplicationBootstrap(): void {
    this.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.stop();
  }

  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = this.run();
  }

  /** Finishes the batch in flight, gives the lock up and resolves. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  private wakeUp(): void {
    this.notified = true;
    if (!this.backingOff) this.wake?.();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      this.notified = false;
      const outcome = await this.relayBatch();
      failures = outcome === 'failed' ? failures + 1 : 0;
      if (outcome === 'full' || this.stopping) continue; // more may be waiting
      if (failures > 0) {
        this.backingOff = true;
        await this.sleep(backoffMs(failures, { firstMs: this.pollIntervalMs, capMs: MAX_BACKOFF_MS }));
        this.backingOff = false;
      } else if (!this.notified) {
        // The relaying replica waits for a NOTIFY (or notify()), reading only now and then.
        await this.sleep(this.listening ? this.safetyPollMs : this.pollIntervalMs);
      }
    }
    await this.releaseLock();
  }

  /** One poll: takes (or keeps) the lock, publishes the oldest rows, deletes what was published. */
  private async relayBatch(): Promise<BatchOutcome> {
    try {
      const lock = await this.acquireLock();
      if (!lock) return 'idle';
      const rows = await this.query<OutboxRow>(lock, this.selectSql, [this.batchSize]);
      if (rows.length === 0) return 'idle';
      if (this.verifyRows) this.verify(rows);
      const published = await this.publish(rows);
      // By id, never by range: a lower id may commit after a higher one was read.
      if (published.length > 0) await this.query(lock, this.deleteSql, [published]);
      if (published.length < rows.length) return 'failed';
      return rows.length === this.batchSize ? 'full' : 'idle';
    } catch (err) {
      // Postgres or the lock connection failed: drop the lock (if held) so another replica may take it.
      this.logger.error({ err }, 'outbox relay: database error; lock connection reset');
      await this.releaseLock();
      return 'failed';
    }
  }

  /**
   * The relay's read and delete as named prepared statements on its lock
   * connection (parsed and planned once, not at every batch); through
   * TypeORM when the connection's pg client is not at hand.
   */
  private async query<T>(lock: QueryRunner, sql: string, params: unknown[]): Promise<T[]> {
    const client = (lock as unknown as { databaseConnection?: PreparingClient }).databaseConnection;
    if (!client || typeof client.query !== 'function') return (await lock.query(sql, params)) as T[];
    const result = await client.query({ name: statementName(sql), text: sql, values: params });
    return result.rows as T[];
  }

  private async acquireLock(): Promise<QueryRunner | undefined> {
    if (this.locked && this.lock) return this.lock;
    this.lock ??= this.dataSource.createQueryRunner();
    const rows = (await this.lock.query('SELECT pg_try_advisory_lock($1::bigint) AS locked', [this.lockKey])) as Array<{ locked: boolean }>;
    this.locked = rows[0]?.locked === true;
    if (!this.locked) return undefined;
    this.logger.info('outbox relay: lock taken, relaying');
    await this.listen(this.lock);
    return this.lock;
  }

  /**
   * LISTENs on the lock connection: a commit that enqueued wakes the relay at
   * once, whichever process (or replica) wrote. Rows committed before the
   * LISTEN are read by the batch that follows the lock. Without it (a driver
   * that does not expose its client), the relay polls as before.
   */
  private async listen(lock: QueryRunner): Promise<void> {
    const client = (lock as unknown as { databaseConnection?: NotifyingClient }).databaseConnection;
    if (!client || typeof client.on !== 'function') return;
    await lock.query(`LISTEN "${this.channel}"`);
    client.on('notification', this.onNotification);
    client.on('error', this.onConnectionLost);
    client.on('end', this.onConnectionLost);
    this.listening = client;
  }

  /** Unlocks and returns the connection; a dead one is dropped by the pool (its session, and the lock, are gone already). */
  private async releaseLock(): Promise<void> {
    const lock = this.lock;
    const wasLocked = this.locked;
    const listening = this.listening;
    this.lock = undefined;
    this.locked = false;
    this.listening = undefined;
    if (!lock) return;
    if (listening) {
      listening.removeListener('notification', this.onNotification);
      listening.removeListener('error', this.onConnectionLost);
      listening.removeListener('end', this.onConnectionLost);
      clearTimeout(this.coalescing);
      this.coalescing = undefined;
      await lock.query('UNLISTEN *').catch(() => undefined); // the connection goes back to the pool
    }
    if (wasLocked) await lock.query('SELECT pg_advisory_unlock($1::bigint)', [this.lockKey]).catch(() => undefined);
    await lock.release().catch(() => undefined);
  }

  private verify(rows: OutboxRow[]): void {
    for (const row of rows) {
      const reason = outboxRowViolation({ ...row, payload: JSON.parse(row.payload) as unknown });
      if (reason === undefined) continue;
      recordOutboxViolation({ topic: row.topic, type: row.type, version: row.version, messageId: row.messageId, reason });
      this.logger.error(
        { topic: row.topic, type: row.type, messageId: row.messageId, reason },
        'outbox relay: a row does not match its contract',
      );
    }
  }

  /** Publishes one send per topic, rows in id order; returns the ids the broker acknowledged. */
  private async publish(rows: OutboxRow[]): Promise<string[]> {
    const byTopic = new Map<TopicKey, OutboxRow[]>();
    for (const row of rows) {
      const group = byTopic.get(row.topic) ?? [];
      group.push(row);
      byTopic.set(row.topic, group);
    }
    const results = await Promise.allSettled(
      [...byTopic].map(async ([topic, group]) => {
        await this.client.send(this.client.topic(Topics[topic]), group.map(toKafkaMessage));
        this.publishedTotal.inc({ topic }, group.length);
        return group.map((row) => row.id);
      }),
    );
    const published: string[] = [];
    for (const result of results) {
      if (result.status === 'fulfilled') {
        published.push(...result.value);
      } else {
        this.failuresTotal.inc();
        this.logger.error({ err: result.reason as unknown }, 'outbox relay: publish failed, will retry');
      }
    }
    return published;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake?.(), ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }
}

/** What the relay needs of pg's Client for its statements. */
interface PreparingClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** What the relay needs of pg's Client: its notification events. */
interface NotifyingClient {
  on(event: 'notification' | 'error' | 'end', listener: () => void): unknown;
  removeListener(event: 'notification' | 'error' | 'end', listener: () => void): unknown;
}

/** The message as its contract's headers describe it (`contractHeaders`), the payload's text as the row holds it. */
const toKafkaMessage = (row: OutboxRow): Message => ({
  key: row.key,
  value: row.payload,
  headers: contractHeaders(row, { ...row, traceparent: row.traceparent ?? null }),
});

/** A stable 64-bit advisory lock key per schema (one relay per service). */
function advisoryLockKey(schema: string): string {
  return createHash('sha256').update(`worktrack.outbox:${schema}`).digest().readBigInt64BE(0).toString();
}
