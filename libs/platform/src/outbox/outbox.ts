import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { parsePayload, toWire, Topics, type MessageContract, type TopicDefinition } from '@worktrack/contracts';
import { schemaOf } from '../database/data-source.factory';
import { BROKER_DEFAULT_MAX_MESSAGE_BYTES } from '../kafka/kafka.client';
import { currentRequestId } from '../logging/logger';
import { currentTraceparent } from '../tracing/tracing';
import { outboxChannel, outboxTable } from './outbox-table';

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
export function enqueue<T extends object>(
  manager: EntityManager,
  contract: MessageContract<T>,
  payload: T,
  opts: EnqueueOptions,
): Promise<void> {
  return enqueueMany(manager, contract, [{ payload, opts }]);
}

/**
 * `enqueue` for several messages of one contract in one statement:
 * rows in the order given, so one key's messages keep it.
 */
export async function enqueueMany<T extends object>(
  manager: EntityManager,
  contract: MessageContract<T>,
  messages: Array<{ payload: T; opts: EnqueueOptions }>,
): Promise<void> {
  if (!manager.queryRunner?.isTransactionActive) {
    throw new Error('enqueue needs the EntityManager of an open transaction (dataSource.transaction(manager => ...))');
  }
  if (messages.length === 0) return;
  const texts = messages.map(({ payload }) => checkedOutboxPayload(contract, payload));
  // One plain statement, the payloads as the JSON text just validated (not serialised
  // again), and the relay woken
  // through LISTEN/NOTIFY: Postgres delivers the notification when (and only if) this
  // transaction commits, to the replica relaying, whichever process wrote the row.
  const schema = schemaOf(manager.connection);
  await manager.query(
    `WITH rows AS (
       INSERT INTO ${outboxTable(schema)} (topic, key, type, version, message_id, request_id, payload, traceparent)
       SELECT $1, m.key, $2, $3, m.message_id, m.request_id, m.payload::jsonb, $9::text
         FROM unnest($4::text[], $5::uuid[], $6::text[], $7::text[]) WITH ORDINALITY AS m(key, message_id, request_id, payload, n)
        ORDER BY m.n
       RETURNING id)
     SELECT pg_notify($8, '') FROM (SELECT 1 FROM rows LIMIT 1) AS any_row`,
    [
      contract.topic,
      contract.type,
      contract.version,
      messages.map(({ opts }) => opts.key),
      messages.map(({ opts }) => opts.messageId ?? randomUUID()),
      messages.map(({ opts }) => opts.requestId ?? currentRequestId() ?? null),
      texts,
      outboxChannel(schema),
      currentTraceparent() ?? null,
    ],
  );
}

/**
 * The checks `enqueue` makes before it writes, for a writer that builds its
 * outbox row inside a statement of its own: the payload against its contract,
 * and its size against what its topic accepts (a row its topic cannot take
 * would block the relay, rows going in order, for every key; producers chunk
 * what can grow). Returns the payload as JSON text.
 */
export function checkedOutboxPayload<T extends object>(contract: MessageContract<T>, payload: T): string {
  const { plain, text } = toWire(payload);
  parsePayload(contract.payload, plain, `${contract.type}.v${contract.version}`);
  const topic: TopicDefinition = Topics[contract.topic];
  const limit = topic.maxMessageBytes ?? BROKER_DEFAULT_MAX_MESSAGE_BYTES;
  const bytes = Buffer.byteLength(text) + 1_024;
  if (bytes > limit) throw new Error(`${contract.type} message of ${bytes} bytes exceeds ${topic.name}'s ${limit}-byte limit`);
  return text;
}
