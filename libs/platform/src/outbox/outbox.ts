import { createHash, randomUUID } from 'node:crypto';
import type { Message } from 'kafkajs';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Header, parsePayload, toWire, Topics, type MessageContract, type TopicKey } from '@worktrack/contracts';
import { schemaOf } from '../database/data-source.factory';
import type { KafkaClient } from '../kafka/kafka.client';
import type { HeaderMap } from '../kafka/message';
import { currentRequestId, type AppLogger } from '../logging/logger';
import type { Metrics } from '../metrics/metrics';
import { OutboxMessageEntity } from './outbox-message.entity';

export interface EnqueueOptions {
  /** Partition key; one member's messages share a key (their id) to keep order. */
  key: string;
  /** Defaults to the request id of the current log context. */
  requestId?: string;
  messageId?: string;
}

/**
 * Writes a message to the outbox in the caller's transaction: it is published
 * if and only if the transaction commits. The payload is validated against its
 * contract here, so an invalid message fails the transaction, not the relay.
 * Pass `messageId` to know the `wt-message-id` consumers will dedupe by.
 */
export async function enqueue<T extends object>(
  manager: EntityManager,
  contract: MessageContract<T>,
  payload: T,
  opts: EnqueueOptions,
): Promise<void> {
  if (!manager.queryRunner?.isTransactionActive) {
    throw new Error('enqueue needs the EntityManager of an open transaction (dataSource.transaction(manager => ...))');
  }
  const { plain } = toWire(payload);
  parsePayload(contract.payload, plain, `${contract.type}.v${contract.version}`);
  await manager.insert(OutboxMessageEntity, {
    topic: contract.topic,
    key: opts.key,
    type: contract.type,
    version: contract.version,
    messageId: opts.messageId ?? randomUUID(),
    requestId: opts.requestId ?? currentRequestId() ?? null,
    payload: plain as QueryDeepPartialEntity<Record<string, unknown>>, // an object: parsePayload just checked it
  });
}

export interface OutboxRelayOptions {
  /** How often the outbox is read when nobody calls `notify()`. */
  pollIntervalMs?: number;
  /** Rows read, published and deleted at a time. */
  batchSize?: number;
}

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
 */
export class OutboxRelay {
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly lockKey: string;
  private readonly logger: AppLogger;
  private readonly publishedTotal: Counter<'topic'>;
  private readonly failuresTotal: Counter;
  private lock?: QueryRunner;
  private locked = false;
  private loop?: Promise<void>;
  private stopping = false;
  private notified = false;
  private backingOff = false;
  private wake?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly client: KafkaClient,
    logger: AppLogger,
    metrics: Metrics,
    opts: OutboxRelayOptions = {},
  ) {
    this.pollIntervalMs = opts.pollIntervalMs ?? 200;
    this.batchSize = opts.batchSize ?? 500;
    this.lockKey = advisoryLockKey(schemaOf(dataSource));
    this.logger = logger.child({ component: 'outbox-relay' });
    ({ publishedTotal: this.publishedTotal, failuresTotal: this.failuresTotal } = outboxMetrics(metrics.registry, dataSource));
  }

  /** True while this replica is the one relaying. */
  get holdsLock(): boolean {
    return this.locked;
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

  /** Call after a commit that enqueued messages: relays now instead of at the next poll (not during a back-off). */
  notify(): void {
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
        await this.sleep(Math.min(this.pollIntervalMs * 2 ** failures, MAX_BACKOFF_MS));
        this.backingOff = false;
      } else if (!this.notified) {
        await this.sleep(this.pollIntervalMs);
      }
    }
    await this.releaseLock();
  }

  /** One poll: takes (or keeps) the lock, publishes the oldest rows, deletes what was published. */
  private async relayBatch(): Promise<BatchOutcome> {
    try {
      const lock = await this.acquireLock();
      if (!lock) return 'idle';
      const rows = await lock.manager.find(OutboxMessageEntity, { order: { id: 'ASC' }, take: this.batchSize });
      if (rows.length === 0) return 'idle';
      const published = await this.publish(rows);
      // By id, never by range: a lower id may commit after a higher one was read.
      if (published.length > 0) await lock.manager.delete(OutboxMessageEntity, published);
      if (published.length < rows.length) return 'failed';
      return rows.length === this.batchSize ? 'full' : 'idle';
    } catch (err) {
      // Postgres or the lock connection failed: drop the lock (if held) so another replica may take it.
      this.logger.error({ err }, 'outbox relay: database error; lock connection reset');
      await this.releaseLock();
      return 'failed';
    }
  }

  private async acquireLock(): Promise<QueryRunner | undefined> {
    if (this.locked && this.lock) return this.lock;
    this.lock ??= this.dataSource.createQueryRunner();
    const rows = (await this.lock.query('SELECT pg_try_advisory_lock($1::bigint) AS locked', [this.lockKey])) as Array<{ locked: boolean }>;
    this.locked = rows[0]?.locked === true;
    if (this.locked) this.logger.info('outbox relay: lock taken, relaying');
    return this.locked ? this.lock : undefined;
  }

  /** Unlocks and returns the connection; a dead one is dropped by the pool (its session, and the lock, are gone already). */
  private async releaseLock(): Promise<void> {
    const lock = this.lock;
    const wasLocked = this.locked;
    this.lock = undefined;
    this.locked = false;
    if (!lock) return;
    if (wasLocked) await lock.query('SELECT pg_advisory_unlock($1::bigint)', [this.lockKey]).catch(() => undefined);
    await lock.release().catch(() => undefined);
  }

  /** Publishes one send per topic, rows in id order; returns the ids the broker acknowledged. */
  private async publish(rows: OutboxMessageEntity[]): Promise<string[]> {
    const byTopic = new Map<TopicKey, OutboxMessageEntity[]>();
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

/** The message as MessagePublisher would send it: same value and headers (see `contractHeaders`). */
function toKafkaMessage(row: OutboxMessageEntity): Message {
  const headers: HeaderMap = {
    [Header.type]: row.type,
    [Header.version]: String(row.version),
    [Header.messageId]: row.messageId,
  };
  if (row.requestId) headers[Header.requestId] = row.requestId;
  return { key: row.key, value: JSON.stringify(row.payload), headers };
}

/** A stable 64-bit advisory lock key per schema (one relay per service). */
function advisoryLockKey(schema: string): string {
  return createHash('sha256').update(`worktrack.outbox:${schema}`).digest().readBigInt64BE(0).toString();
}

/** The outbox metrics in the app's registry; a second relay on the same registry shares them. */
function outboxMetrics(registry: Registry, dataSource: DataSource): { publishedTotal: Counter<'topic'>; failuresTotal: Counter } {
  const existing = <M>(name: string): M | undefined => registry.getSingleMetric(name) as M | undefined;
  const publishedTotal =
    existing<Counter<'topic'>>('worktrack_outbox_published_total') ??
    new Counter({
      name: 'worktrack_outbox_published_total',
      help: 'Outbox messages published (acknowledged by the broker), by topic key.',
      labelNames: ['topic'],
      registers: [registry],
    });
  const failuresTotal =
    existing<Counter>('worktrack_outbox_publish_failures_total') ??
    new Counter({
      name: 'worktrack_outbox_publish_failures_total',
      help: 'Outbox publish attempts that failed (the rows stay and are retried).',
      registers: [registry],
    });
  if (!existing('worktrack_outbox_pending')) {
    const repository = dataSource.getRepository(OutboxMessageEntity);
    new Gauge({
      name: 'worktrack_outbox_pending',
      help: 'Outbox rows waiting to be published (counted at scrape time).',
      registers: [registry],
      async collect() {
        // Keeps the last value when Postgres does not answer; /metrics still serves.
        const count = await repository.count().catch(() => undefined);
        if (count !== undefined) this.set(count);
      },
    });
  }
  return { publishedTotal, failuresTotal };
}
