import type { EachMessagePayload, KafkaMessage } from 'kafkajs';
import { ContractViolation, Header, parsePayload, Topics, type MessageContract } from '@worktrack/contracts';
import { isDomainError } from '../errors/domain-error';
import { withLogContext, type AppLogger } from '../logging/logger';
import type { Metrics } from '../metrics/metrics';
import type { KafkaClient, RunningConsumer } from './kafka.client';
import { decodeJson, messageMeta, type MessageMeta } from './message';

export type MessageHandler<T> = (payload: T, meta: MessageMeta) => Promise<void>;

export interface ConsumerOptions {
  /** Consumer group (prefixed per deployment); replicas of one service share it. */
  groupId: string;
  /** Attempts for a failing handler before the message is dead-lettered. */
  maxAttempts?: number;
  /** Partitions handled in parallel; one partition (so one member) is always sequential. */
  concurrency?: number;
  sessionTimeoutMs?: number;
  /** Read a new group's topics from the start (event topics) or only new messages. */
  fromBeginning?: boolean;
  /** Publish `worktrack_kafka_consumer_lag` for this group every 5 s. */
  reportLag?: boolean;
}

interface Registration {
  contract: MessageContract;
  handler: MessageHandler<object>;
}

/** Errors that no retry can fix: the message goes to the dead-letter topic at once. */
const isPermanent = (err: unknown): boolean => err instanceof ContractViolation || err instanceof SyntaxError || isDomainError(err);

/**
 * At-least-once consumer of contract messages. A message's offset is committed
 * only after its handler resolved, so handlers must be idempotent (a crash
 * before the commit redelivers). A message that cannot be parsed, has an
 * unknown version, or keeps failing goes to `platform.dead-letters` with its
 * error and is counted: it never blocks the partition and is never dropped
 * silently. Types this consumer does not handle are skipped (topics may carry
 * several types).
 */
export class MessageConsumer {
  private readonly registrations = new Map<string, Registration>();
  private readonly knownTypes = new Set<string>();
  private consumer?: RunningConsumer;
  private lagTimer?: NodeJS.Timeout;

  constructor(
    private readonly client: KafkaClient,
    private readonly logger: AppLogger,
    private readonly metrics: Metrics,
    private readonly options: ConsumerOptions,
  ) {}

  on<T extends object>(contract: MessageContract<T>, handler: MessageHandler<T>): this {
    const topic = this.client.topic(Topics[contract.topic]);
    this.registrations.set(`${topic}|${contract.type}|${contract.version}`, {
      contract,
      handler: handler as unknown as MessageHandler<object>,
    });
    this.knownTypes.add(`${topic}|${contract.type}`);
    return this;
  }

  async start(): Promise<void> {
    const topics = [...new Set([...this.registrations.values()].map((r) => this.client.topic(Topics[r.contract.topic])))];
    this.consumer = await this.client.startConsumer({
      groupId: this.client.group(this.options.groupId),
      topics,
      fromBeginning: this.options.fromBeginning ?? true,
      concurrency: this.options.concurrency ?? 4,
      sessionTimeoutMs: this.options.sessionTimeoutMs,
      maxWaitTimeInMs: 250,
      eachMessage: (payload) => this.onMessage(payload),
    });
    if (this.options.reportLag) {
      this.lagTimer = setInterval(() => void this.reportLag(topics).catch(() => undefined), 5_000);
      this.lagTimer.unref();
    }
  }

  /** Committed offsets against high watermarks, per topic. */
  async reportLag(topics: string[]): Promise<Record<string, number>> {
    const admin = await this.client.admin();
    const groupId = this.client.group(this.options.groupId);
    const committed = await admin.fetchOffsets({ groupId, topics });
    const lag: Record<string, number> = {};
    for (const topic of topics) {
      const ends = await admin.fetchTopicOffsets(topic);
      const mine = committed.find((c) => c.topic === topic)?.partitions ?? [];
      lag[topic] = ends.reduce((sum, end) => {
        const at = Number(mine.find((p) => p.partition === end.partition)?.offset ?? '-1');
        return sum + Math.max(0, Number(end.high) - (at < 0 ? Number(end.low) : at));
      }, 0);
      this.metrics.consumerLag.set({ group: groupId, topic }, lag[topic]);
    }
    return lag;
  }

  /** Stops fetching, lets in-flight handlers finish, commits their offsets, leaves the group. */
  async stop(): Promise<void> {
    clearInterval(this.lagTimer);
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer?.stop();
  }

  private async onMessage(payload: EachMessagePayload): Promise<void> {
    const { topic, partition, message } = payload;
    const meta = messageMeta(topic, partition, message);
    await withLogContext({ requestId: meta.requestId, messageId: meta.messageId }, async () => {
      const registration = this.registrations.get(`${topic}|${meta.type}|${meta.version}`);
      if (!registration) {
        if (this.knownTypes.has(`${topic}|${meta.type}`)) {
          await this.deadLetter(meta, message, new Error(`unsupported version ${meta.version} of ${meta.type}`));
        } else {
          this.metrics.kafkaMessages.inc({ topic, type: meta.type, outcome: 'ignored' });
        }
        return;
      }
      const maxAttempts = this.options.maxAttempts ?? 5;
      const stopTimer = this.metrics.kafkaHandleDuration.startTimer({ topic, type: meta.type });
      for (let attempt = 1; ; attempt++) {
        try {
          const parsed = parsePayload(registration.contract.payload, decodeJson(message.value), `${meta.type}.v${meta.version}`);
          await registration.handler(parsed, meta);
          this.metrics.kafkaMessages.inc({ topic, type: meta.type, outcome: 'handled' });
          stopTimer();
          return;
        } catch (err) {
          if (isPermanent(err) || attempt >= maxAttempts) {
            stopTimer();
            await this.deadLetter(meta, message, err);
            return;
          }
          this.metrics.kafkaMessages.inc({ topic, type: meta.type, outcome: 'retried' });
          this.logger.warn({ err, attempt, topic, partition, offset: meta.offset }, 'handler failed; retrying');
          await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 5_000)));
          await payload.heartbeat();
        }
      }
    });
  }

  private async deadLetter(meta: MessageMeta, message: KafkaMessage, err: unknown): Promise<void> {
    const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    this.logger.error({ err, topic: meta.topic, partition: meta.partition, offset: meta.offset, type: meta.type }, 'message dead-lettered');
    await this.client.send(this.client.topic(Topics.deadLetters), [
      {
        key: message.key,
        value: message.value,
        headers: {
          ...meta.headers,
          'wt-dlq-topic': meta.topic,
          'wt-dlq-partition': String(meta.partition),
          'wt-dlq-offset': meta.offset,
          'wt-dlq-group': this.client.group(this.options.groupId),
          'wt-dlq-error': error.slice(0, 2_000),
          [Header.type]: meta.type,
        },
      },
    ]);
    this.metrics.kafkaMessages.inc({ topic: meta.topic, type: meta.type, outcome: 'dead_lettered' });
  }
}
