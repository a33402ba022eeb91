import {
  Kafka,
  logLevel,
  Partitioners,
  type Admin,
  type Consumer,
  type EachMessageHandler,
  type LogEntry,
  type Message,
  type Producer,
} from 'kafkajs';
import { topicName, type TopicDefinition } from '@worktrack/contracts';
import type { AppConfig } from '../config/base.config';
import type { AppLogger } from '../logging/logger';
import { PeriodicCommits } from './periodic-commits';

const levels: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

export interface StartConsumerOptions {
  /** Physical group id (already prefixed). */
  groupId: string;
  /** Physical topic names. */
  topics: string[];
  /** Where a group without committed offsets starts. */
  fromBeginning: boolean;
  /** Partitions handled in parallel; one partition is always sequential. */
  concurrency: number;
  sessionTimeoutMs?: number;
  maxWaitTimeInMs?: number;
  /**
   * Commit handled offsets every this many ms (PeriodicCommits) instead of
   * after every fetched batch; for the request/reply path, where that commit
   * sat between one fetch and the next.
   */
  commitIntervalMs?: number;
  eachMessage: EachMessageHandler;
}

/** A consumer that joined its group and runs. */
export interface RunningConsumer {
  /** The kafkajs consumer, for its instrumentation events. */
  readonly consumer: Consumer;
  /** Stops fetching; handlers in flight finish and their offsets are committed; leaves the group. */
  stop(): Promise<void>;
}

/**
 * The app's Kafka connection: one client, one shared producer (acks=all,
 * idempotent, one request in flight so one key's messages keep their order),
 * and the deployment's topic/group prefix.
 */
export class KafkaClient {
  readonly kafka: Kafka;
  private producerPromise?: Promise<Producer>;
  private readonly queue: Array<{ topic: string; messages: Message[]; resolve: () => void; reject: (err: unknown) => void }> = [];
  private flushing = false;
  private adminPromise?: Promise<Admin>;

  constructor(
    readonly app: string,
    private readonly config: AppConfig,
    private readonly logger: AppLogger,
  ) {
    const kafkaLogger = logger.child({ component: 'kafkajs' });
    this.kafka = new Kafka({
      clientId: `${app}.${config.INSTANCE_ID}`,
      brokers: config.brokers,
      connectionTimeout: 3_000,
      requestTimeout: 10_000,
      retry: { initialRetryTime: 100, maxRetryTime: 5_000, retries: 8 },
      logLevel: logLevel.WARN,
      logCreator:
        () =>
        ({ level, log }: LogEntry) => {
          const { message, ...extra } = log;
          // Retries are bounded on purpose (a send fails instead of hanging);
          // delivery is at-least-once with idempotent consumers, not exactly-once.
          if (message.startsWith('Limiting retries for the idempotent producer')) return;
          kafkaLogger[levels[level] ?? 'info'](extra, message);
        },
    });
  }

  get instanceId(): string {
    return this.config.INSTANCE_ID;
  }

  topic(def: TopicDefinition): string {
    return topicName(def, this.config.KAFKA_TOPIC_PREFIX);
  }

  group(name: string): string {
    return `${this.config.KAFKA_TOPIC_PREFIX}${name}`;
  }

  producer(): Promise<Producer> {
    this.producerPromise ??= (async () => {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      await producer.connect();
      return producer;
    })().catch((err: unknown) => {
      this.producerPromise = undefined;
      throw err;
    });
    return this.producerPromise;
  }

  /**
   * Produces with acks=all through the one idempotent producer. While one
   * produce request is in flight, later sends queue up and leave together as
   * the next batch (like the Java client's linger): throughput grows with
   * concurrency while one key's messages keep their order. Resolves once the
   * broker acknowledged the batch holding these messages.
   */
  send(topic: string, messages: Message[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ topic, messages, resolve, reject });
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, 1_000);
        try {
          const producer = await this.producer();
          await producer.sendBatch({ acks: -1, topicMessages: batch.map(({ topic, messages }) => ({ topic, messages })) });
          for (const entry of batch) entry.resolve();
        } catch (err) {
          for (const entry of batch) entry.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** Creates, subscribes and runs a consumer; resolves once it joined its group and holds its partitions. */
  async startConsumer(options: StartConsumerOptions): Promise<RunningConsumer> {
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: options.sessionTimeoutMs ?? 10_000,
      heartbeatInterval: 1_000,
      maxWaitTimeInMs: options.maxWaitTimeInMs ?? 100,
      allowAutoTopicCreation: false,
    });
    await consumer.connect();
    await consumer.subscribe({ topics: options.topics, fromBeginning: options.fromBeginning });
    const joined = waitForJoin(consumer);
    const commits = options.commitIntervalMs ? new PeriodicCommits(consumer, options.commitIntervalMs, this.logger) : undefined;
    commits?.start();
    await consumer.run({
      partitionsConsumedConcurrently: options.concurrency,
      autoCommit: !commits,
      eachMessage: commits ? commits.wrap(options.eachMessage) : options.eachMessage,
    });
    await joined;
    return { consumer, stop: () => (commits ? commits.stop(options.topics) : consumer.disconnect()) };
  }

  /**
   * Stops a consumer whose group belongs to this replica alone (reply and
   * broadcast feeds) and deletes the group rather than leaving it to expire.
   */
  async stopPrivateConsumer(consumer: RunningConsumer | undefined, groupId: string): Promise<void> {
    await consumer?.stop();
    try {
      await (await this.admin()).deleteGroups([groupId]);
    } catch {
      // Best effort: an empty group's offsets expire on their own.
    }
  }

  admin(): Promise<Admin> {
    this.adminPromise ??= (async () => {
      const admin = this.kafka.admin();
      await admin.connect();
      return admin;
    })().catch((err: unknown) => {
      this.adminPromise = undefined;
      throw err;
    });
    return this.adminPromise;
  }

  /** Readiness: the cluster answers a metadata request. */
  async ping(): Promise<void> {
    const admin = await this.admin();
    const cluster = await admin.describeCluster();
    if (cluster.brokers.length === 0) throw new Error('no brokers');
  }

  async close(): Promise<void> {
    const producer = this.producerPromise;
    const admin = this.adminPromise;
    this.producerPromise = undefined;
    this.adminPromise = undefined;
    await Promise.allSettled([producer?.then((p) => p.disconnect()), admin?.then((a) => a.disconnect())]);
  }
}

/** Resolves once the consumer has joined its group and holds its partitions. */
export function waitForJoin(consumer: Consumer, timeoutMs = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`consumer did not join its group within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = consumer.on(consumer.events.GROUP_JOIN, () => {
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}
