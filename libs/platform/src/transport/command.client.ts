import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { EachMessagePayload } from 'kafkajs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ContractViolation, ErrorCode, Header, parsePayload, Topics, type CommandContract, type ReplyBody } from '@worktrack/contracts';
import { DomainError } from '../errors/domain-error';
import { MessageTooLargeError, type KafkaClient, type RunningConsumer } from '../kafka/kafka.client';
import { REQUEST_REPLY_COMMIT_INTERVAL_MS } from '../kafka/periodic-commits';
import { asErrorBody, contractHeaders, decodeJson, readHeaders } from '../kafka/message';
import { currentRequestId, type AppLogger } from '../logging/logger';
import type { Metrics } from '../metrics/metrics';
import { SpanKind, withSpan } from '../tracing/tracing';

export interface CommandClientOptions {
  /** How long a request waits for its reply before it fails with UNAVAILABLE. */
  timeoutMs: number;
  /** The topic replies come back on: the gateway's by default; a service that sends commands has its own. */
  replies?: 'gatewayReplies' | 'connectorsReplies' | 'ingestionReplies';
  /**
   * Check each command against its contract before sending (default): a
   * command outside it is refused here with a ContractViolation that names
   * the field, which a requester building commands from outside data (the
   * connectors' mapped events) reports as the reason. The service checks it
   * again on receipt either way, so a requester whose commands are built from
   * requests it validated already (the gateway) turns this off: a
   * command outside the contract is then answered INTERNAL by the service.
   */
  validateCommands?: boolean;
}

export interface SendOptions {
  /** Partition key: the member id, so one member's commands stay in order. */
  key: string;
  requestId?: string;
}

interface Pending {
  resolve: (body: ReplyBody) => void;
  timer: NodeJS.Timeout;
}

const PROBE = 'probe:';

/**
 * D-2 ("never a hang"): the time by which the request being served
 * must be answered (epoch ms). The gateway sets it for each HTTP request; every
 * command sent on the request's behalf waits at most until then, so a request
 * that sends several commands one after another (a token lookup, then the
 * command itself) still answers within the one bound. Unset (a service's own
 * commands), each command has its own timeout.
 */
export const requestDeadline = new AsyncLocalStorage<number>();

/**
 * The requesting side of request/reply over Kafka (ADR 0002).
 *
 * Every gateway replica reads the whole `gateway.replies` topic in a consumer
 * group of its own (`gateway.replies.<instance id>`), so no rebalance among
 * replicas can move a reply away from the replica that waits for it; a reply
 * is matched by correlation id and addressed by instance id, and replicas drop
 * replies that are not theirs. Before taking traffic the client sends itself a
 * probe on every partition and waits for all of them, which proves its reading
 * position is set before its first request. Every request carries a deadline:
 * the caller gets UNAVAILABLE when it passes (never a hang) and services skip
 * commands whose deadline has passed.
 */
export class CommandClient implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly pending = new Map<string, Pending>();
  private consumer?: RunningConsumer;
  private accepting = false;

  constructor(
    private readonly client: KafkaClient,
    private readonly logger: AppLogger,
    private readonly metrics: Metrics,
    private readonly options: CommandClientOptions,
  ) {}

  private get replies(): (typeof Topics)['gatewayReplies' | 'connectorsReplies' | 'ingestionReplies'] {
    return Topics[this.options.replies ?? 'gatewayReplies'];
  }

  get replyTopic(): string {
    return this.client.topic(this.replies);
  }

  get replyGroup(): string {
    return this.client.group(`${this.replies.name}.${this.client.instanceId}`);
  }

  get isReady(): boolean {
    return this.accepting;
  }

  /** Nest: ready (its reply partitions probed) before the app listens. */
  onApplicationBootstrap(): Promise<void> {
    return this.start();
  }

  /** Nest: after HTTP closed, so that requests in flight get their replies while the app drains. */
  onApplicationShutdown(): Promise<void> {
    return this.stop();
  }

  async start(): Promise<void> {
    this.consumer = await this.client.startConsumer({
      groupId: this.replyGroup,
      topics: [this.replyTopic],
      fromBeginning: false,
      concurrency: this.replies.partitions,
      commitIntervalMs: REQUEST_REPLY_COMMIT_INTERVAL_MS,
      eachMessage: (payload) => this.onReply(payload),
    });
    await this.probe();
    this.accepting = true;
  }

  /** Takes no new requests, waits (bounded) for the ones in flight, then leaves. */
  async stop(): Promise<void> {
    this.accepting = false;
    const deadline = Date.now() + this.options.timeoutMs;
    while (this.pending.size > 0 && Date.now() < deadline) await sleep(20);
    const consumer = this.consumer;
    this.consumer = undefined;
    await this.client.stopPrivateConsumer(consumer, this.replyGroup);
  }

  /**
   * Sends a command and resolves with its result, validated against the
   * contract here (the service does not check it before answering), or
   * rejects with a DomainError. The command is checked here unless
   * `validateCommands` is off, and by the service that receives it.
   */
  send<T extends object, R extends object>(contract: CommandContract<T, R>, payload: T, opts: SendOptions): Promise<R> {
    // With tracing on, a producer span from the publish to the reply: the service's span is its child.
    return withSpan(
      `send ${contract.type}`,
      () => ({
        'messaging.system': 'kafka',
        'messaging.destination.name': Topics[contract.topic].name,
        'worktrack.message.type': contract.type,
      }),
      () => this.sendCommand(contract, payload, opts),
      SpanKind.PRODUCER,
    );
  }

  private async sendCommand<T extends object, R extends object>(
    contract: CommandContract<T, R>,
    payload: T,
    opts: SendOptions,
  ): Promise<R> {
    const name = `${contract.type}.v${contract.version}`;
    if (!this.accepting) throw new DomainError(ErrorCode.UNAVAILABLE, 'The gateway is not ready to send commands.');
    const text = JSON.stringify(payload);
    // Checked as it travels; with validateCommands off only the service checks it, on receipt.
    if (this.options.validateCommands !== false) parsePayload(contract.payload, JSON.parse(text), name);
    const deadline = requestDeadline.getStore();
    const timeoutMs = deadline === undefined ? this.options.timeoutMs : Math.min(this.options.timeoutMs, deadline - Date.now());
    if (timeoutMs <= 0) {
      this.metrics.rpcDuration.observe({ command: name, outcome: 'timeout' }, 0);
      throw new DomainError(ErrorCode.UNAVAILABLE, 'The request could not be answered within its time limit.');
    }
    const correlationId = randomUUID();
    const requestId = opts.requestId ?? currentRequestId();
    const stopTimer = this.metrics.rpcDuration.startTimer({ command: name });
    const reply = this.await(correlationId, timeoutMs);
    // D-2, never a hang: the deadline runs from here whatever the broker does. The
    // publish is not awaited before the reply (a broker away makes it retry for
    // longer than the deadline); if it fails first the caller gets UNAVAILABLE at
    // once, and if it succeeds after the deadline the service skips the command.
    this.client
      .send(this.client.topic(Topics[contract.topic]), [
        {
          key: opts.key,
          value: text,
          headers: {
            ...contractHeaders(contract, { messageId: correlationId, requestId }),
            [Header.correlationId]: correlationId,
            [Header.replyTo]: this.replyTopic,
            [Header.replyInstance]: this.client.instanceId,
            [Header.deadline]: String(Date.now() + timeoutMs),
          },
        },
      ])
      .catch((err: unknown) => {
        if (err instanceof MessageTooLargeError) {
          // The request itself is too large for its topic: the client's fault, and nothing was sent.
          this.settle(correlationId, { ok: false, error: { code: ErrorCode.PAYLOAD_TOO_LARGE, message: 'The request is too large.' } });
          return;
        }
        this.logger.error({ err, command: name }, 'command could not be published');
        this.settle(correlationId, { ok: false, error: { code: ErrorCode.UNAVAILABLE, message: 'The message broker is unavailable.' } });
      });
    const body = await reply;
    if (body.ok) {
      try {
        const result = parsePayload(contract.result, body.data, `${name}.result`);
        stopTimer({ outcome: 'ok' });
        return result;
      } catch (err) {
        stopTimer({ outcome: 'error' });
        this.logger.error({ err, command: name }, 'reply violates its contract');
        throw new DomainError(ErrorCode.INTERNAL, 'A service answered with an invalid reply.');
      }
    }
    stopTimer({ outcome: body.error.code === ErrorCode.UNAVAILABLE ? 'timeout' : 'error' });
    throw DomainError.fromBody(body.error);
  }

  private await(correlationId: string, timeoutMs: number): Promise<ReplyBody> {
    return new Promise<ReplyBody>((resolve) => {
      const timer = setTimeout(() => {
        this.settle(correlationId, {
          ok: false,
          error: { code: ErrorCode.UNAVAILABLE, message: `The service did not answer within ${timeoutMs} ms.` },
        });
      }, timeoutMs);
      this.pending.set(correlationId, { resolve, timer });
    });
  }

  private settle(correlationId: string, body: ReplyBody): void {
    const pending = this.pending.get(correlationId);
    if (!pending) return; // late or duplicate reply: the request is already answered
    this.pending.delete(correlationId);
    clearTimeout(pending.timer);
    pending.resolve(body);
  }

  private onReply({ message }: EachMessagePayload): Promise<void> {
    const headers = readHeaders(message.headers);
    if (headers[Header.replyInstance] !== this.client.instanceId) return Promise.resolve();
    const correlationId = headers[Header.correlationId];
    if (!correlationId) return Promise.resolve();
    try {
      this.settle(correlationId, toReplyBody(decodeJson(message.value)));
    } catch (err) {
      this.logger.error({ err, correlationId }, 'unreadable reply');
      this.settle(correlationId, {
        ok: false,
        error: { code: ErrorCode.INTERNAL, message: 'A service answered with an unreadable reply.' },
      });
    }
    return Promise.resolve();
  }

  /**
   * Sends itself a probe on every reply partition until one was seen on each.
   * A new group starts at "latest", which kafkajs resolves at its first fetch:
   * a probe sent before that is skipped, so unseen ones are sent again. Once a
   * probe was read on a partition, every later reply there will be read too.
   */
  private async probe(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let missing = Array.from({ length: this.replies.partitions }, (_, p) => p);
    while (missing.length > 0) {
      if (Date.now() > deadline) {
        throw new Error(
          `reply consumer did not see its probes on ${this.replyTopic} partitions ${missing.join(', ')} within ${timeoutMs} ms`,
        );
      }
      const probes = missing.map((p) => ({ p, id: `${PROBE}${randomUUID()}` }));
      const waits = probes.map(({ id }) => this.await(id, 1_000));
      await this.client.send(
        this.replyTopic,
        probes.map(({ p, id }) => ({
          partition: p,
          key: id,
          value: JSON.stringify({ ok: true, data: {} }),
          headers: { [Header.correlationId]: id, [Header.replyInstance]: this.client.instanceId },
        })),
      );
      const results = await Promise.all(waits);
      missing = probes.filter((_, i) => !results[i].ok).map(({ p }) => p);
    }
  }
}

function toReplyBody(value: unknown): ReplyBody {
  const v = (typeof value === 'object' && value !== null ? value : {}) as { ok?: unknown; data?: unknown; error?: unknown };
  if (v.ok === true) return { ok: true, data: v.data };
  const error = v.ok === false ? asErrorBody(v.error) : undefined;
  if (error) return { ok: false, error };
  throw new ContractViolation('reply', [{ path: '', issue: 'not a reply body' }]);
}
