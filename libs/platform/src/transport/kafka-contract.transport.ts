import type { CustomTransportStrategy, MessageHandler } from '@nestjs/microservices';
import { RpcException, Server } from '@nestjs/microservices';
import type { EachBatchPayload, EachMessagePayload, KafkaMessage, Message } from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';
import { lastValueFrom } from 'rxjs';
import { ContractViolation, ErrorCode, Header, Topics, type ReplyBody, type TopicKey } from '@worktrack/contracts';
import { isDomainError } from '../errors/domain-error';
import { EVENT_CONSUMER_IDLE_WAIT_MS, MessageTooLargeError, type KafkaClient, type RunningConsumer } from '../kafka/kafka.client';
import { REQUEST_REPLY_COMMIT_INTERVAL_MS } from '../kafka/periodic-commits';
import { asErrorBody, decodeJson, messageMeta, type MessageMeta } from '../kafka/message';
import { withLogContext, type AppLogger } from '../logging/logger';
import type { Metrics } from '../metrics/metrics';
import { ContractContext } from './contract.context';
import { StartupRefusal } from '../bootstrap/startup-refusal';
import { commandContractsOf } from '../contracts/contract-registry';
import { backoffMs } from '../work/backoff';
import { injectTraceparent, TRACEPARENT_HEADER, withKafkaSpan } from '../tracing/tracing';
import { patternOf, type EventGroupOptions, type HandlerExtras } from './contract-pattern';
import { internalErrorBody } from './rpc-domain-error.filter';

export interface KafkaContractTransportOptions {
  /** The service's command topic (from the registry); every @HandleCommand contract must be on it. */
  commandTopic?: TopicKey;
  /** The command topic's consumer group, shared by the service's replicas. */
  commandGroup?: string;
  /**
   * The service owns `commandTopic`: it refuses to start unless every command
   * contract of the topic has a handler. A test stand-in serving a few of a
   * topic's commands leaves it off.
   */
  ownsCommandTopic?: boolean;
}

/**
 * How often a group with `reportLag` publishes `worktrack_kafka_consumer_lag`
 * (two admin requests per group). Rarely, because each report costs an idle
 * app visible CPU and alerts on lag look at minutes.
 */
export const LAG_REPORT_INTERVAL_MS = 30_000;

/** Errors that no retry can fix: the event goes to the dead-letter topic at once. */
const isPermanent = (err: unknown): boolean => err instanceof ContractViolation || err instanceof SyntaxError || isDomainError(err);

interface EventGroup {
  options: EventGroupOptions;
  /** Physical topics the group reads. */
  topics: Set<string>;
  /** `<physical topic>|<type>` of the contracts it handles: another version of one goes to the dead-letter topic. */
  types: Set<string>;
  /** `<physical topic>|<pattern>` → the handler of this group. */
  handlers: Map<string, MessageHandler>;
  /** `<physical topic>|<pattern>` → how many messages a `@HandleEvents` handler takes at once. */
  batches: Map<string, number>;
  consumer?: RunningConsumer;
  lagTimer?: NodeJS.Timeout;
}

interface ReplyTo {
  replyTo: string;
  replyInstance: string;
  correlationId: string;
  deadline: number;
}

/**
 * The service side of ADR 0002 and ADR 0009 as a Nest transport
 * (`app.connectMicroservice({ strategy })`). Handlers are the controller
 * methods Nest discovered through `@HandleCommand` and `@HandleEvent`, under
 * the pattern `<type>@v<version>`; a message is dispatched on its type and
 * version headers.
 *
 * Commands: one consumer group per service on its command topic, partitions
 * in parallel and one key in order, offsets committed every 500 ms after the
 * handler and its reply (ADR 0009). A command past its deadline is skipped;
 * every other one gets exactly one reply, sized before it is sent (too large
 * → an error reply) and retried until the requester's deadline. One message
 * never stops the service: whatever fails becomes an error reply.
 *
 * Events: one consumer group per `group` of the handlers, read a fetched
 * batch of one partition at a time and committed per batch once handled (at
 * least once); consecutive messages for a `@HandleEvents` handler go to it in
 * one call. A message that cannot be parsed, has an unknown
 * version of a handled type, or keeps failing goes to
 * `platform.dead-letters` with its error. Types a group does not handle are
 * skipped.
 */
export class KafkaContractTransport extends Server implements CustomTransportStrategy {
  private commandConsumer?: RunningConsumer;
  private readonly groups = new Map<string, EventGroup>();

  constructor(
    private readonly client: KafkaClient,
    private readonly log: AppLogger,
    private readonly metrics: Metrics,
    private readonly options: KafkaContractTransportOptions = {},
  ) {
    super();
  }

  async listen(callback: (err?: unknown) => void): Promise<void> {
    try {
      await this.start();
      callback();
    } catch (err) {
      await this.close().catch(() => undefined);
      callback(err);
    }
  }

  /** Stops fetching; commands and events in flight finish (commands reply) and commit before this resolves. */
  async close(): Promise<void> {
    const consumers: Array<RunningConsumer | undefined> = [this.commandConsumer];
    this.commandConsumer = undefined;
    for (const group of this.groups.values()) {
      clearInterval(group.lagTimer);
      consumers.push(group.consumer);
      group.consumer = undefined;
    }
    await Promise.all(consumers.map((c) => (c ? c.stop() : Promise.resolve())));
  }

  on(): never {
    throw new Error('KafkaContractTransport has no events to listen to; see KafkaClient.onFatal.');
  }

  unwrap<T>(): T {
    return this.client as T;
  }

  private async start(): Promise<void> {
    const commands = new Set<string>();
    for (const [pattern, first] of this.messageHandlers) {
      for (let handler: MessageHandler | undefined = first; handler; handler = handler.next) {
        const extras = handler.extras as HandlerExtras | undefined;
        if (extras?.kind === 'command') {
          if (extras.contract.topic !== this.options.commandTopic) {
            throw new Error(
              `${pattern} belongs to ${extras.contract.topic}, not ${this.options.commandTopic ?? 'a service command topic'}`,
            );
          }
          commands.add(pattern);
        } else if (extras?.kind === 'event') {
          this.addEventHandler(pattern, extras, handler);
        }
      }
    }
    if (this.options.commandTopic && this.options.ownsCommandTopic) assertEveryCommandHandled(this.options.commandTopic, commands);
    if (commands.size > 0 && this.options.commandTopic) {
      const topic = Topics[this.options.commandTopic];
      this.commandConsumer = await this.client.startConsumer({
        groupId: this.client.group(this.options.commandGroup ?? this.options.commandTopic),
        topics: [this.client.topic(topic)],
        // From the beginning for a new group: nothing sent before the first join is
        // lost, and whatever is stale is skipped by its deadline.
        fromBeginning: true,
        // Every partition in parallel; one key (member) stays sequential.
        concurrency: topic.partitions,
        commitIntervalMs: REQUEST_REPLY_COMMIT_INTERVAL_MS,
        eachMessage: (payload) => this.onCommand(payload),
      });
    }
    for (const group of this.groups.values()) {
      const topics = [...group.topics];
      group.consumer = await this.client.startConsumer({
        groupId: this.client.group(group.options.group),
        topics,
        fromBeginning: true, // a new group reads what its topics already hold
        concurrency: group.options.concurrency ?? 4,
        idleWaitMs: EVENT_CONSUMER_IDLE_WAIT_MS,
        eachBatch: (payload) => this.onEventBatch(group, payload),
      });
      if (group.options.reportLag) {
        group.lagTimer = setInterval(() => void this.reportLag(group.options.group, topics).catch(() => undefined), LAG_REPORT_INTERVAL_MS);
        group.lagTimer.unref();
      }
    }
  }

  private addEventHandler(pattern: string, extras: Extract<HandlerExtras, { kind: 'event' }>, handler: MessageHandler): void {
    const name = extras.options.group;
    let group = this.groups.get(name);
    if (!group) {
      group = { options: extras.options, topics: new Set(), types: new Set(), handlers: new Map(), batches: new Map() };
      this.groups.set(name, group);
    } else {
      group.options = { ...group.options, ...extras.options };
    }
    const topic = this.client.topic(Topics[extras.contract.topic]);
    if (group.handlers.has(`${topic}|${pattern}`)) throw new Error(`${pattern} has two handlers in group ${name}`);
    group.topics.add(topic);
    group.types.add(`${topic}|${extras.contract.type}`);
    group.handlers.set(`${topic}|${pattern}`, handler);
    if (extras.maxBatch) group.batches.set(`${topic}|${pattern}`, Math.max(1, extras.maxBatch));
  }

  /** Committed offsets against high watermarks, per topic (`worktrack_kafka_consumer_lag`). */
  private async reportLag(groupName: string, topics: string[]): Promise<void> {
    const admin = await this.client.admin();
    const groupId = this.client.group(groupName);
    const committed = await admin.fetchOffsets({ groupId, topics });
    for (const topic of topics) {
      const ends = await admin.fetchTopicOffsets(topic);
      const mine = committed.find((c) => c.topic === topic)?.partitions ?? [];
      const lag = ends.reduce((sum, end) => {
        const at = Number(mine.find((p) => p.partition === end.partition)?.offset ?? '-1');
        return sum + Math.max(0, Number(end.high) - (at < 0 ? Number(end.low) : at));
      }, 0);
      this.metrics.consumerLag.set({ group: groupId, topic }, lag);
    }
  }

  /** Runs a discovered handler (pipes, interceptors and filters included) to its last value. */
  private async invoke(handler: MessageHandler, payload: unknown, context: ContractContext): Promise<unknown> {
    return lastValueFrom(this.transformToObservable(await handler(payload, context)), { defaultValue: undefined });
  }

  private async onCommand({ topic, partition, message }: EachMessagePayload): Promise<void> {
    const meta = messageMeta(topic, partition, message);
    const deadline = Number(meta.headers[Header.deadline] ?? '0');
    const replyTo = meta.headers[Header.replyTo];
    const replyInstance = meta.headers[Header.replyInstance];
    const correlationId = meta.headers[Header.correlationId];
    if (!replyTo || !replyInstance || !correlationId || !Number.isFinite(deadline)) {
      this.metrics.kafkaMessages.inc({ topic, type: meta.type, outcome: 'malformed' });
      this.log.error({ topic, partition, offset: meta.offset, headers: meta.headers }, 'command without reply headers skipped');
      return;
    }
    if (Date.now() > deadline) {
      this.metrics.kafkaMessages.inc({ topic, type: meta.type, outcome: 'expired' });
      this.log.warn(
        { topic, partition, offset: meta.offset, type: meta.type, lateMs: Date.now() - deadline },
        'command past its deadline skipped',
      );
      return;
    }
    try {
      // The command's span continues the requester's trace; the reply carries it back.
      await withKafkaSpan(
        `process ${meta.type}`,
        { relation: 'child', traceparents: [meta.headers[TRACEPARENT_HEADER]], attributes: () => kafkaSpanAttributes(meta) },
        async () => {
          const body = await this.execute(meta, message.value);
          this.metrics.kafkaMessages.inc({ topic, type: meta.type, outcome: body.ok ? 'handled' : 'failed' });
          await withLogContext({ requestId: meta.requestId, messageId: meta.messageId }, () =>
            this.reply(meta, { replyTo, replyInstance, correlationId, deadline }, body),
          );
        },
      );
    } catch (err) {
      // Never out of the consumer: one message must not stop the service for every other requester.
      this.metrics.kafkaMessages.inc({ topic, type: meta.type, outcome: 'unanswered' });
      this.log.error({ err, topic, partition, offset: meta.offset, type: meta.type, requestId: meta.requestId }, 'command left unanswered');
    }
  }

  private async execute(meta: MessageMeta, value: Buffer | null): Promise<ReplyBody> {
    const handler = this.messageHandlers.get(patternOf(meta));
    if (!handler || (handler.extras as HandlerExtras | undefined)?.kind !== 'command') {
      this.log.error({ type: meta.type, version: meta.version }, 'no handler for command');
      return { ok: false, error: { code: ErrorCode.INTERNAL, message: `Unsupported command ${meta.type} v${meta.version}.` } };
    }
    try {
      const data = await this.invoke(handler, decodeJson(value), new ContractContext([meta, 'command']));
      return { ok: true, data };
    } catch (err) {
      const body = err instanceof RpcException ? asErrorBody(err.getError()) : undefined;
      if (body) return { ok: false, error: body };
      // Outside the handler's filter: an unreadable value.
      this.log.error({ err, type: meta.type }, 'command failed');
      return { ok: false, error: internalErrorBody(meta.requestId) };
    }
  }

  /**
   * Sends exactly one reply. A reply larger than the reply topic accepts
   * (refused by `KafkaClient.send` before it joins a produce request) becomes an
   * error reply; a send that fails for a passing reason (broker or leader
   * moving) is retried until the requester's deadline, then given up: the
   * requester has answered 503 by then.
   */
  private async reply(meta: MessageMeta, to: ReplyTo, body: ReplyBody): Promise<void> {
    const headers = injectTraceparent({
      [Header.correlationId]: to.correlationId,
      [Header.replyInstance]: to.replyInstance,
      [Header.messageId]: meta.messageId,
      ...(meta.requestId ? { [Header.requestId]: meta.requestId } : {}),
    });
    const message = (b: ReplyBody): Message => ({ key: to.correlationId, value: JSON.stringify(b), headers });
    let outgoing = message(body);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.client.send(to.replyTo, [outgoing]);
        return;
      } catch (err) {
        if (err instanceof MessageTooLargeError) {
          this.log.error(
            { type: meta.type, bytes: err.bytes, limit: err.limit },
            'reply larger than its topic accepts; answering with an error',
          );
          outgoing = message({ ok: false, error: internalErrorBody(meta.requestId) }); // small: always fits
          continue;
        }
        const wait = backoffMs(attempt, { firstMs: 100, capMs: 1_000 });
        if (Date.now() + wait > to.deadline) {
          this.log.error(
            { err, type: meta.type, attempts: attempt + 1 },
            'reply could not be sent before the deadline; the requester has given up',
          );
          this.metrics.kafkaMessages.inc({ topic: meta.topic, type: meta.type, outcome: 'unanswered' });
          return;
        }
        this.log.warn({ err, type: meta.type, attempt: attempt + 1 }, 'reply not sent; retrying');
        await sleep(wait);
      }
    }
  }

  /**
   * One fetched batch of one partition, in offset order. Consecutive
   * messages for a `@HandleEvents` handler go to it together (up to its
   * `maxBatch`); every other message is handled alone as before. An offset is
   * resolved once its message was handled (or dead-lettered) and kafkajs
   * commits what was resolved when the batch returns, so a crash or a
   * rebalance redelivers from the first message not handled (at least once).
   */
  private async onEventBatch(group: EventGroup, payload: EachBatchPayload): Promise<void> {
    const { topic, partition, messages } = payload.batch;
    const heartbeat = (): Promise<void> => payload.heartbeat();
    const metas = messages.map((message) => messageMeta(topic, partition, message));
    for (let i = 0; i < messages.length;) {
      if (!payload.isRunning() || payload.isStale()) return;
      const key = `${topic}|${patternOf(metas[i])}`;
      const max = group.batches.get(key) ?? 1;
      let end = i + 1;
      while (end < messages.length && end - i < max && `${topic}|${patternOf(metas[end])}` === key) end++;
      if (end - i > 1) {
        await this.onEventRun(group, key, metas.slice(i, end), messages.slice(i, end), heartbeat);
      } else {
        await this.onEvent(group, metas[i], messages[i], heartbeat);
      }
      payload.resolveOffset(messages[end - 1].offset);
      await heartbeat();
      i = end;
    }
  }

  /** Several messages for one `@HandleEvents` handler: one call, else one at a time (retries, dead letters). */
  private async onEventRun(
    group: EventGroup,
    key: string,
    metas: MessageMeta[],
    messages: KafkaMessage[],
    heartbeat: () => Promise<void>,
  ): Promise<void> {
    const handler = group.handlers.get(key) as MessageHandler;
    const first = metas[0];
    try {
      const values = messages.map((m) => decodeJson(m.value));
      // A trace of its own, linked to every message's writer (the asynchronous tail).
      await withKafkaSpan(
        `process ${first.type}`,
        {
          relation: 'link',
          traceparents: metas.map((m) => m.headers[TRACEPARENT_HEADER]),
          attributes: () => ({ ...kafkaSpanAttributes(first), 'messaging.batch.message_count': messages.length }),
        },
        () => this.invoke(handler, values, new ContractContext([first, 'event', metas])),
      );
      this.metrics.kafkaMessages.inc({ topic: first.topic, type: first.type, outcome: 'handled' }, messages.length);
      return;
    } catch (err) {
      this.log.warn(
        { err, topic: first.topic, partition: first.partition, offset: first.offset, messages: messages.length },
        'batch handler failed; handling its messages one at a time',
      );
    }
    for (let i = 0; i < messages.length; i++) {
      await this.onEvent(group, metas[i], messages[i], heartbeat);
      await heartbeat();
    }
  }

  private async onEvent(group: EventGroup, meta: MessageMeta, message: KafkaMessage, heartbeat: () => Promise<void>): Promise<void> {
    const { topic, partition } = meta;
    const key = `${topic}|${patternOf(meta)}`;
    const handler = group.handlers.get(key);
    if (!handler) {
      if (group.types.has(`${topic}|${meta.type}`)) {
        await this.deadLetter(group, meta, message, new Error(`unsupported version ${meta.version} of ${meta.type}`));
      } else {
        this.metrics.kafkaMessages.inc({ topic, type: meta.type, outcome: 'ignored' });
      }
      return;
    }
    // A @HandleEvents handler takes its payloads as an array, here of one.
    const many = group.batches.has(key);
    const maxAttempts = group.options.maxAttempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      try {
        const value = decodeJson(message.value);
        await withKafkaSpan(
          `process ${meta.type}`,
          { relation: 'link', traceparents: [meta.headers[TRACEPARENT_HEADER]], attributes: () => kafkaSpanAttributes(meta) },
          () => this.invoke(handler, many ? [value] : value, new ContractContext([meta, 'event'])),
        );
        this.metrics.kafkaMessages.inc({ topic, type: meta.type, outcome: 'handled' });
        return;
      } catch (err) {
        if (isPermanent(err) || attempt >= maxAttempts) {
          await this.deadLetter(group, meta, message, err);
          return;
        }
        this.metrics.kafkaMessages.inc({ topic, type: meta.type, outcome: 'retried' });
        this.log.warn({ err, attempt, topic, partition, offset: meta.offset }, 'handler failed; retrying');
        await sleep(backoffMs(attempt, { firstMs: 100, capMs: 5_000 }));
        await heartbeat();
      }
    }
  }

  private async deadLetter(group: EventGroup, meta: MessageMeta, message: KafkaMessage, err: unknown): Promise<void> {
    const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    this.log.error({ err, topic: meta.topic, partition: meta.partition, offset: meta.offset, type: meta.type }, 'message dead-lettered');
    await this.client.send(this.client.topic(Topics.deadLetters), [
      {
        key: message.key,
        value: message.value,
        headers: {
          ...meta.headers,
          'wt-dlq-topic': meta.topic,
          'wt-dlq-partition': String(meta.partition),
          'wt-dlq-offset': meta.offset,
          'wt-dlq-group': this.client.group(group.options.group),
          'wt-dlq-error': error.slice(0, 2_000),
          [Header.type]: meta.type,
        },
      },
    ]);
    this.metrics.kafkaMessages.inc({ topic: meta.topic, type: meta.type, outcome: 'dead_lettered' });
  }
}

/** What a Kafka consumer span says of the message it handles (semantic conventions for messaging). */
function kafkaSpanAttributes(meta: MessageMeta): Record<string, string | number> {
  return {
    'messaging.destination.name': meta.topic,
    'messaging.destination.partition.id': String(meta.partition),
    'messaging.kafka.offset': Number(meta.offset),
    'messaging.message.id': meta.messageId,
    'worktrack.message.type': meta.type,
  };
}

/**
 * A service refuses to start when a command contract of the topic it owns
 * has no handler: a requester would otherwise wait for a reply until its
 * deadline and answer UNAVAILABLE, for a command no replica can ever serve.
 */
export function assertEveryCommandHandled(topic: TopicKey, handled: ReadonlySet<string>): void {
  const missing = commandContractsOf(topic)
    .map(patternOf)
    .filter((pattern) => !handled.has(pattern));
  if (missing.length > 0) throw new StartupRefusal(`${Topics[topic].name} has command contracts with no handler: ${missing.join(', ')}`);
}
