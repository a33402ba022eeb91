import {
  Kafka,
  logLevel,
  Partitioners,
  type Admin,
  type Consumer,
  type EachBatchHandler,
  type EachMessageHandler,
  type LogEntry,
  type Message,
  type Producer,
} from 'kafkajs';
import { allTopics, ErrorCode, topicName, type TopicDefinition } from '@worktrack/contracts';
import { within } from '../async/within';
import type { AppConfig } from '../config/base.config';
import { DomainError } from '../errors/domain-error';
import type { AppLogger } from '../logging/logger';
import { PrivateGroupJanitor } from './group-janitor';
import { useNativeCrc32c } from './kafkajs-crc32c';
import { patchKafkajsRequestQueue } from './kafkajs-request-queue';
import { PeriodicCommits } from './periodic-commits';

/** The broker's default `message.max.bytes` (a topic without its own `max.message.bytes`). */
export const BROKER_DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;
/** What a record adds to its key, value and headers inside a record batch (batch header, varints), generously. */
const RECORD_OVERHEAD_BYTES = 512;
/** One produce request carries at most this much (the broker's socket.request.max.bytes is 100 MiB). */
const MAX_PRODUCE_REQUEST_BYTES = 16 * 1_048_576;

/** The size a message takes in a record batch, as the broker's `max.message.bytes` counts it (upper bound). */
export function recordBytes(message: Message): number {
  const size = (v: Buffer | string | null | undefined): number => (v === null || v === undefined ? 0 : Buffer.byteLength(v));
  let bytes = RECORD_OVERHEAD_BYTES + size(message.key) + size(message.value);
  for (const [k, v] of Object.entries(message.headers ?? {})) {
    bytes += size(k);
    for (const one of Array.isArray(v) ? v : [v]) bytes += size(one);
  }
  return bytes;
}

/**
 * A message larger than its topic accepts. Refused before it is batched, so it
 * never fails the other messages of the produce request it would have joined.
 */
export class MessageTooLargeError extends DomainError {
  constructor(
    readonly topic: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(ErrorCode.PAYLOAD_TOO_LARGE, `The message (${bytes} bytes) exceeds what ${topic} accepts (${limit} bytes).`);
    this.name = 'MessageTooLargeError';
  }
}

// Kafkajs' request queues otherwise wake the event loop every millisecond (see the module).
patchKafkajsRequestQueue();
// Kafkajs otherwise checksums every record batch it produces in JavaScript (see the module).
useNativeCrc32c();

const levels: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/**
 * Broker answers that only mean "not yet": a group coordinator or a
 * partition leader being elected or loaded (a broker starting, a group's
 * first join). kafkajs logs each such response as an error and retries it;
 * a request that still fails after its retries surfaces as an error of its
 * own. So they are debug detail, not errors to whoever runs `npm start`.
 */
const TRANSIENT_BROKER_ERRORS = new Set([
  'The group coordinator is not available',
  'This is not the correct coordinator for this group',
  "The coordinator is loading and hence can't process requests for this group",
  'There is no leader for this topic-partition as we are in the middle of a leadership election',
  'This server is not the leader for that topic-partition',
  // A topic just created, before its partitions have a leader.
  'This server does not host this topic-partition',
]);

/** The pino level of a kafkajs log entry: its own, except a retried election answer (`TRANSIENT_BROKER_ERRORS`), which is debug. */
export function kafkajsLogLevel(level: logLevel, message: string, extra: Record<string, unknown>): 'error' | 'warn' | 'info' | 'debug' {
  if (message.startsWith('Response ') && typeof extra.error === 'string' && TRANSIENT_BROKER_ERRORS.has(extra.error)) return 'debug';
  return levels[level] ?? 'info';
}

/**
 * How long the broker holds a fetch that finds nothing (ADR 0012).
 * A fetch asks for at least one byte, so the broker answers it as soon as a
 * record arrives on any of its partitions: this bounds idle spinning, not
 * latency. At 100–250 ms every consumer of every app fetched 4–10 times a
 * second with no traffic. 1 s keeps an idle heartbeat every second (kafkajs
 * heartbeats between fetches; the session times out after 6 s), a rebalance
 * noticed within a second and a stop that waits at most a second for the
 * fetch in flight. 2 s (with 2 s heartbeats) was tried in the third session:
 * it saved about a point of a core idle, but replicas joining and leaving
 * under load stalled request/reply past its 8 s deadlines
 * (libs/platform/test/transport.int-spec.ts), so it stays at 1 s.
 */
export const CONSUMER_MAX_WAIT_MS = 1_000;

/**
 * The idle fetch wait and heartbeat interval of event groups (ADR
 * 0012 decision 19): not on any request's path, so a rebalance they notice a
 * second later stalls no request, while their idle fetches and heartbeats
 * halve. Still a third of the 6 s session timeout, so restart times are
 * unchanged. Command groups keep CONSUMER_MAX_WAIT_MS.
 */
export const EVENT_CONSUMER_IDLE_WAIT_MS = 2_000;

/**
 * The idle fetch wait and heartbeat interval of a replica's private groups
 * (`<family><instance id>`: its reply feeds, the gateway's identity feed;
 * ADR 0012 decision 27). What keeps command groups at 1 s is a
 * rebalance stalling requests while replicas join and leave; a group of one
 * member never rebalances while it runs, and a reply still ends its fetch at
 * once. Its stop waits up to this long for the fetch in flight.
 */
export const PRIVATE_GROUP_IDLE_WAIT_MS = EVENT_CONSUMER_IDLE_WAIT_MS;

/** A consumer's session timeout. */
export const CONSUMER_SESSION_TIMEOUT_MS = 6_000;

export interface StartConsumerOptions {
  /** Physical group id (already prefixed). */
  groupId: string;
  /** Physical topic names. */
  topics: string[];
  /** Where a group without committed offsets starts. */
  fromBeginning: boolean;
  /** Partitions handled in parallel; one partition is always sequential. */
  concurrency: number;
  /**
   * How long the broker holds an empty fetch, and how often the consumer
   * heartbeats (kafkajs heartbeats between fetches): CONSUMER_MAX_WAIT_MS
   * (PRIVATE_GROUP_IDLE_WAIT_MS for a group of this replica alone) unless
   * said otherwise, at most a third of the session timeout. Data ends
   * a fetch at once whatever the wait: this bounds idle spinning, not latency.
   */
  idleWaitMs?: number;
  /**
   * Commit handled offsets every this many ms (PeriodicCommits) instead of
   * after every fetched batch; for the request/reply path, where that commit
   * sat between one fetch and the next.
   */
  commitIntervalMs?: number;
  /**
   * False: the group never commits offsets, so every start (and a rejoin)
   * reads from where `fromBeginning` says, for a replica that rebuilds its
   * state from a compacted topic each time it starts.
   */
  commitOffsets?: boolean;
  /** One call per message; exactly one of `eachMessage` and `eachBatch`. */
  eachMessage?: EachMessageHandler;
  /**
   * One call per fetched batch of one partition: the handler
   * resolves the offsets it handled (`resolveOffset`), and they are committed
   * once the call returns (or throws); not with `commitIntervalMs`.
   */
  eachBatch?: EachBatchHandler;
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
  private readonly queue: Array<{
    topic: string;
    messages: Message[];
    bytes: number;
    resolve: () => void;
    reject: (err: unknown) => void;
  }> = [];
  private flushing = false;
  private adminPromise?: Promise<Admin>;
  private readonly limits = new Map<string, number>();
  /** Consumers that crashed and that kafkajs will not restart, by group id: why. */
  private readonly crashed = new Map<string, string>();
  private readonly fatalListeners = new Set<(reason: string) => void>();
  /** Deletes the private groups (`<family><instance id>`) of replicas that are gone. */
  readonly janitor: PrivateGroupJanitor;

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
          kafkaLogger[kafkajsLogLevel(level, message, extra)](extra, message);
        },
    });
    this.janitor = new PrivateGroupJanitor(
      () => this.admin(),
      logger.child({ component: 'group-janitor' }),
      config.KAFKA_GROUP_JANITOR_INTERVAL_MS,
    );
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

  /** The largest record a topic (physical name) accepts: its registry `maxMessageBytes`, else the broker default. */
  maxMessageBytes(topic: string): number {
    let limit = this.limits.get(topic);
    if (limit === undefined) {
      const def = allTopics().find((t) => topic === this.topic(t) || topic.endsWith(`.${t.name}`) || topic === t.name);
      limit = def && 'maxMessageBytes' in def && def.maxMessageBytes ? def.maxMessageBytes : BROKER_DEFAULT_MAX_MESSAGE_BYTES;
      this.limits.set(topic, limit);
    }
    return limit;
  }

  producer(): Promise<Producer> {
    this.producerPromise ??= connected(
      this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        createPartitioner: Partitioners.DefaultPartitioner,
      }),
      () => (this.producerPromise = undefined),
    );
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
    const limit = this.maxMessageBytes(topic);
    let bytes = 0;
    for (const message of messages) {
      const size = recordBytes(message);
      if (size > limit) return Promise.reject(new MessageTooLargeError(topic, size, limit));
      bytes += size;
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ topic, messages, bytes, resolve, reject });
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        // Up to 1,000 sends and 16 MiB per produce request (at least one send).
        let count = 0;
        let bytes = 0;
        while (
          count < this.queue.length &&
          count < 1_000 &&
          (count === 0 || bytes + this.queue[count].bytes <= MAX_PRODUCE_REQUEST_BYTES)
        ) {
          bytes += this.queue[count].bytes;
          count++;
        }
        const batch = this.queue.splice(0, count);
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
    const { eachMessage, eachBatch } = options;
    if (!eachMessage === !eachBatch) throw new Error('startConsumer needs exactly one of eachMessage and eachBatch');
    if (eachBatch && options.commitIntervalMs) throw new Error('commitIntervalMs applies to eachMessage only');
    const { heartbeatInterval, maxWaitTimeInMs } = consumerWaits(options.idleWaitMs ?? this.defaultIdleWait(options.groupId));
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      // How long a killed member holds its partitions before the group moves
      // them (a restarted replica waits that long to join). 6 s is the broker's
      // default group.min.session.timeout.ms; heartbeats go every second (two for event
      // groups), and an empty fetch never outlasts the heartbeat interval (kafkajs heartbeats between fetches).
      sessionTimeout: CONSUMER_SESSION_TIMEOUT_MS,
      heartbeatInterval,
      maxWaitTimeInMs,
      allowAutoTopicCreation: false,
    });
    this.watchCrashes(consumer, options.groupId);
    await consumer.connect();
    await consumer.subscribe({ topics: options.topics, fromBeginning: options.fromBeginning });
    const joined = waitForJoin(consumer);
    const commits = options.commitIntervalMs ? new PeriodicCommits(consumer, options.commitIntervalMs, this.logger) : undefined;
    commits?.start();
    await consumer.run({
      partitionsConsumedConcurrently: options.concurrency,
      autoCommit: options.commitOffsets !== false && !commits,
      ...(eachBatch
        ? { eachBatch, eachBatchAutoResolve: false }
        : { eachMessage: commits && eachMessage ? commits.wrap(eachMessage) : eachMessage }),
    });
    await joined;
    // A group of this replica alone (ADR 0002): look after its family's leftovers.
    if (this.isPrivate(options.groupId)) this.janitor.watch(options.groupId.slice(0, -this.instanceId.length), options.groupId);
    return { consumer, stop: () => (commits ? commits.stop(options.topics) : consumer.disconnect()) };
  }

  /** Whether `groupId` is a group of this replica alone (`<family><instance id>`, ADR 0002). */
  private isPrivate(groupId: string): boolean {
    return groupId.endsWith(`.${this.instanceId}`);
  }

  private defaultIdleWait(groupId: string): number {
    return this.isPrivate(groupId) ? PRIVATE_GROUP_IDLE_WAIT_MS : CONSUMER_MAX_WAIT_MS;
  }

  /**
   * A consumer that crashed for good (kafkajs emits `consumer.crash`
   * with restart=false, e.g. for a non-retriable error out of a handler) no
   * longer consumes while the process lives on. It makes the app not ready
   * (`assertConsumersRunning`, the `consumers` readiness check) and is
   * reported to the fatal listeners, which drain the app and exit non-zero so
   * that the supervisor or orchestrator restarts it. A crash kafkajs restarts
   * by itself (a broker away, a rebalance) is only logged.
   */
  private watchCrashes(consumer: Consumer, groupId: string): void {
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      const reason = payload.error instanceof Error ? `${payload.error.name}: ${payload.error.message}` : String(payload.error);
      if (payload.restart) {
        this.logger.warn({ groupId, reason }, 'consumer crashed; kafkajs restarts it');
        return;
      }
      this.crashed.set(groupId, reason);
      this.logger.error({ groupId, reason }, 'consumer crashed and will not restart; the app is not ready');
      for (const listener of this.fatalListeners) listener(`consumer ${groupId} crashed: ${reason}`);
    });
  }

  /** Readiness: every consumer this client started still runs (none crashed for good). */
  assertConsumersRunning(): Promise<void> {
    if (this.crashed.size === 0) return Promise.resolve();
    return Promise.reject(new Error(`crashed: ${[...this.crashed].map(([group, reason]) => `${group} (${reason})`).join('; ')}`));
  }

  /** Called when the app cannot recover by itself (a consumer crashed for good). */
  onFatal(listener: (reason: string) => void): () => void {
    this.fatalListeners.add(listener);
    return () => this.fatalListeners.delete(listener);
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
    return (this.adminPromise ??= connected(this.kafka.admin(), () => (this.adminPromise = undefined)));
  }

  /** Readiness: the cluster answers a metadata request. */
  async ping(): Promise<void> {
    const admin = await this.admin();
    const cluster = await admin.describeCluster();
    if (cluster.brokers.length === 0) throw new Error('no brokers');
  }

  async close(): Promise<void> {
    await this.janitor.stop();
    const producer = this.producerPromise;
    const admin = this.adminPromise;
    this.producerPromise = undefined;
    this.adminPromise = undefined;
    await Promise.allSettled([producer?.then((p) => p.disconnect()), admin?.then((a) => a.disconnect())]);
  }
}

/** `client` once connected; a failed connect calls `forget`, so that the next use connects again. */
async function connected<T extends { connect(): Promise<void> }>(client: T, forget: () => void): Promise<T> {
  try {
    await client.connect();
    return client;
  } catch (err) {
    forget();
    throw err;
  }
}

/** A consumer's heartbeat interval and idle fetch wait for an idle wait: never more than a third of the session timeout. */
export function consumerWaits(idleWaitMs: number): { heartbeatInterval: number; maxWaitTimeInMs: number } {
  const heartbeatInterval = Math.min(idleWaitMs, Math.floor(CONSUMER_SESSION_TIMEOUT_MS / 3));
  return { heartbeatInterval, maxWaitTimeInMs: heartbeatInterval };
}

/** Resolves once the consumer has joined its group and holds its partitions. */
export async function waitForJoin(consumer: Consumer, timeoutMs = 30_000): Promise<void> {
  let off = (): void => undefined;
  const joined = new Promise<void>((resolve) => (off = consumer.on(consumer.events.GROUP_JOIN, () => resolve())));
  try {
    await within(joined, timeoutMs, () => new Error(`consumer did not join its group within ${timeoutMs} ms`));
  } finally {
    off();
  }
}
