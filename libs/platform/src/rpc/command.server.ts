import type { EachMessagePayload } from 'kafkajs';
import { ErrorCode, Header, parsePayload, toWire, Topics, type CommandContract, type ReplyBody, type TopicKey } from '@worktrack/contracts';
import { isDomainError } from '../errors/domain-error';
import type { KafkaClient, RunningConsumer } from '../kafka/kafka.client';
import { REQUEST_REPLY_COMMIT_INTERVAL_MS } from '../kafka/periodic-commits';
import { decodeJson, messageMeta, type MessageMeta } from '../kafka/message';
import { withLogContext, type AppLogger } from '../logging/logger';
import type { Metrics } from '../metrics/metrics';

export type CommandHandler<T, R> = (payload: T, meta: MessageMeta) => Promise<R>;

export interface CommandServerOptions {
  /** The service's command topic (from the registry). */
  topic: TopicKey;
  /** Consumer group shared by the service's replicas. */
  groupId: string;
  /** Partitions handled in parallel; one key (member) stays sequential. */
  concurrency?: number;
  sessionTimeoutMs?: number;
}

interface Registration {
  contract: CommandContract;
  handler: CommandHandler<object, object>;
}

/**
 * The service side of request/reply (ADR 0002). Consumes the service's command
 * topic in one consumer group, skips commands whose deadline has passed (the
 * requester stopped waiting), runs the handler and sends exactly one reply to
 * the requester's reply topic, addressed to the requesting replica. The offset
 * is committed after the reply is acknowledged: a crash in between redelivers
 * the command (at-least-once), so handlers are idempotent and requesters drop
 * a second reply.
 */
export class CommandServer {
  private readonly registrations = new Map<string, Registration>();
  private consumer?: RunningConsumer;

  constructor(
    private readonly client: KafkaClient,
    private readonly logger: AppLogger,
    private readonly metrics: Metrics,
    private readonly options: CommandServerOptions,
  ) {}

  handle<T extends object, R extends object>(contract: CommandContract<T, R>, handler: CommandHandler<T, R>): this {
    if (contract.topic !== this.options.topic) {
      throw new Error(`${contract.type} belongs to ${contract.topic}, not ${this.options.topic}`);
    }
    this.registrations.set(`${contract.type}|${contract.version}`, {
      contract,
      handler: handler as unknown as CommandHandler<object, object>,
    });
    return this;
  }

  async start(): Promise<void> {
    this.consumer = await this.client.startConsumer({
      groupId: this.client.group(this.options.groupId),
      topics: [this.client.topic(Topics[this.options.topic])],
      // From the beginning for a new group: nothing sent before the first join is
      // lost, and whatever is stale is skipped by its deadline.
      fromBeginning: true,
      concurrency: this.options.concurrency ?? Topics[this.options.topic].partitions,
      sessionTimeoutMs: this.options.sessionTimeoutMs,
      commitIntervalMs: REQUEST_REPLY_COMMIT_INTERVAL_MS,
      eachMessage: (payload) => this.onCommand(payload),
    });
  }

  /** Stops fetching; commands in flight finish, reply and commit before this resolves. */
  async stop(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer?.stop();
  }

  private async onCommand({ topic, partition, message }: EachMessagePayload): Promise<void> {
    const meta = messageMeta(topic, partition, message);
    const deadline = Number(meta.headers[Header.deadline] ?? '0');
    const replyTo = meta.headers[Header.replyTo];
    const replyInstance = meta.headers[Header.replyInstance];
    const correlationId = meta.headers[Header.correlationId];
    if (!replyTo || !replyInstance || !correlationId || !Number.isFinite(deadline)) {
      this.metrics.kafkaMessages.inc({ topic, type: meta.type, outcome: 'malformed' });
      this.logger.error({ topic, partition, offset: meta.offset, headers: meta.headers }, 'command without reply headers skipped');
      return;
    }
    if (Date.now() > deadline) {
      this.metrics.kafkaMessages.inc({ topic, type: meta.type, outcome: 'expired' });
      this.logger.warn(
        { topic, partition, offset: meta.offset, type: meta.type, lateMs: Date.now() - deadline },
        'command past its deadline skipped',
      );
      return;
    }
    await withLogContext({ requestId: meta.requestId, messageId: meta.messageId }, async () => {
      const stopTimer = this.metrics.kafkaHandleDuration.startTimer({ topic, type: meta.type });
      const body = await this.execute(meta, message.value);
      stopTimer();
      this.metrics.kafkaMessages.inc({ topic, type: meta.type, outcome: body.ok ? 'handled' : 'failed' });
      await this.client.send(replyTo, [
        {
          key: correlationId,
          value: JSON.stringify(body),
          headers: {
            [Header.correlationId]: correlationId,
            [Header.replyInstance]: replyInstance,
            [Header.messageId]: meta.messageId,
            ...(meta.requestId ? { [Header.requestId]: meta.requestId } : {}),
          },
        },
      ]);
    });
  }

  private async execute(meta: MessageMeta, value: Buffer | null): Promise<ReplyBody> {
    const registration = this.registrations.get(`${meta.type}|${meta.version}`);
    if (!registration) {
      this.logger.error({ type: meta.type, version: meta.version }, 'no handler for command');
      return { ok: false, error: { code: ErrorCode.INTERNAL, message: `Unsupported command ${meta.type} v${meta.version}.` } };
    }
    try {
      const name = `${meta.type}.v${meta.version}`;
      const payload = parsePayload(registration.contract.payload, decodeJson(value), name);
      const result = await registration.handler(payload, meta);
      const { plain } = toWire(result);
      // Server side of the contract test: never answer with what the contract does not allow.
      parsePayload(registration.contract.result, plain, `${name}.result`);
      return { ok: true, data: plain };
    } catch (err) {
      if (isDomainError(err)) return { ok: false, error: err.toBody() };
      this.logger.error({ err }, 'command failed');
      return {
        ok: false,
        error: { code: ErrorCode.INTERNAL, message: `Internal error (request id ${meta.requestId ?? 'none'}).` },
      };
    }
  }
}
