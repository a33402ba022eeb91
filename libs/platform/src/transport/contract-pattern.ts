import { applyDecorators, UseFilters, UseInterceptors, UsePipes } from '@nestjs/common';
import { EventPattern, MessagePattern } from '@nestjs/microservices';
import type { CommandContract, MessageContract } from '@worktrack/contracts';
import { ContractValidationPipe } from './contract-validation.pipe';
import { MessageContextInterceptor } from './message.interceptors';
import { RpcDomainErrorFilter } from './rpc-domain-error.filter';

/** The pattern a contract's handler is registered under: `<type>@v<version>` (e.g. `sessions.session.start@v1`). */
export const patternOf = (contract: { type: string; version: number }): string => `${contract.type}@v${contract.version}`;

/** How an event consumer group reads (every handler of one group must agree). */
export interface EventGroupOptions {
  /** Consumer group (prefixed per deployment); replicas of one service share it. */
  group: string;
  /** Partitions handled in parallel; one partition (so one member) is always sequential. Default 4. */
  concurrency?: number;
  /** Attempts for a failing handler before the message goes to the dead-letter topic. Default 5. */
  maxAttempts?: number;
  /** Publish `worktrack_kafka_consumer_lag` for this group every 30 s (LAG_REPORT_INTERVAL_MS). */
  reportLag?: boolean;
}

/** How `@HandleEvents` hands a partition's messages over. */
export interface EventBatchOptions extends EventGroupOptions {
  /** At most this many messages in one call (default 100). */
  maxBatch?: number;
}

/** What the decorators put in a handler's `extras` for KafkaContractTransport. */
export type HandlerExtras =
  | { kind: 'command'; contract: CommandContract }
  | { kind: 'event'; contract: MessageContract; options: EventGroupOptions; maxBatch?: number };

/** The pattern (with the transport's extras), the payload's validation, the message's log context and metrics, D-2 errors. */
const handler = (pattern: MethodDecorator, pipe: ContractValidationPipe): MethodDecorator =>
  applyDecorators(pattern, UsePipes(pipe), UseInterceptors(MessageContextInterceptor), UseFilters(RpcDomainErrorFilter));

/**
 * Marks a method as the handler of a request/reply command (ADR 0002): the
 * payload is validated against the contract before the method runs, domain
 * errors travel back as D-2 codes and anything else as INTERNAL with the
 * request id. The result is sent as the method returned it and validated
 * against the contract's result class by the requester (CommandClient), which
 * answers INTERNAL for a result outside it (once, not at both ends).
 *
 *   @HandleCommand(StartSession) start(@Payload() command: StartSessionV1, @Ctx() ctx: ContractContext)
 */
export function HandleCommand<T extends object, R extends object>(contract: CommandContract<T, R>): MethodDecorator {
  const extras: HandlerExtras = { kind: 'command', contract: contract as unknown as CommandContract };
  return handler(MessagePattern(patternOf(contract), extras), new ContractValidationPipe(contract));
}

/**
 * Marks a method as a handler of an event in consumer group `options.group`:
 * at least once, one key in order, the payload validated; a message that
 * cannot be parsed, has an unknown version or keeps failing goes to the
 * dead-letter topic.
 *
 *   @HandleEvent(MemberState, { group: 'sessions.members' }) upsert(@Payload() member: MemberStateV1)
 */
export function HandleEvent<T extends object>(contract: MessageContract<T>, options: EventGroupOptions): MethodDecorator {
  const extras: HandlerExtras = { kind: 'event', contract: contract as unknown as MessageContract, options };
  return handler(EventPattern(patternOf(contract), extras), new ContractValidationPipe(contract));
}

/**
 * Like `@HandleEvent`, for a handler that applies several messages at once
 *: the method gets the payloads of consecutive messages of one
 * partition with this contract, in offset order (so one key's messages stay
 * in order), each validated, and they count as handled together once it
 * resolves. If it throws, the messages are handled again one at a time (as
 * one-element arrays), each with `@HandleEvent`'s retries and dead-letter
 * topic: a poison message never takes its neighbours with it. The handler
 * must be idempotent for the whole set (they may all come again).
 *
 *   @HandleEvents(EventsStored, { group: 'correlation.events' }) stored(@Payload() messages: EventsStoredV1[])
 */
export function HandleEvents<T extends object>(contract: MessageContract<T>, options: EventBatchOptions): MethodDecorator {
  const { maxBatch = 100, ...group } = options;
  const extras: HandlerExtras = { kind: 'event', contract: contract as unknown as MessageContract, options: group, maxBatch };
  return handler(EventPattern(patternOf(contract), extras), new ContractValidationPipe(contract, { many: true }));
}
