import { parsePayload, Topics, type MessageContract } from '@worktrack/contracts';
import { within } from '../async/within';
import type { AppLogger } from '../logging/logger';
import type { KafkaClient } from '../kafka/kafka.client';
import { decodeJson, messageMeta } from '../kafka/message';

export interface ReplayOptions {
  /** A name for the replay's private, throw-away consumer group (prefixed; the instance and time are added). */
  groupId: string;
  /** Give up (and throw) when the topic was not read to its end by then. */
  timeoutMs?: number;
}

/**
 * Reads a (log-compacted) topic from its start to the end it had when the
 * replay began, handing every message of `contract` to `handle` in partition
 * order, then deletes its consumer group. For projections that must be
 * rebuilt from scratch (a new consumer, an emptied table): the service's own
 * group has committed offsets past what the table lost. Handlers must be
 * idempotent and keep the newest state (the live consumer may deliver the
 * same messages again). Returns how many messages were handled.
 */
export async function replayFromStart<T extends object>(
  client: KafkaClient,
  logger: AppLogger,
  contract: MessageContract<T>,
  handle: (payload: T) => Promise<void>,
  options: ReplayOptions,
): Promise<number> {
  const topic = client.topic(Topics[contract.topic]);
  const admin = await client.admin();
  const ends = await admin.fetchTopicOffsets(topic);
  const remaining = new Map<number, bigint>(); // partition → last offset to read
  for (const p of ends) if (BigInt(p.high) > BigInt(p.low)) remaining.set(p.partition, BigInt(p.high) - 1n);
  if (remaining.size === 0) return 0;

  let handled = 0;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const groupId = client.group(`${options.groupId}.replay.${client.instanceId}.${Date.now()}`);
  const consumer = await client.startConsumer({
    groupId,
    topics: [topic],
    fromBeginning: true,
    concurrency: ends.length,
    idleWaitMs: 100, // a short-lived reader: a stop waits for the fetch in flight
    eachMessage: async ({ partition, message }) => {
      const meta = messageMeta(topic, partition, message);
      if (meta.type === contract.type && meta.version === contract.version) {
        try {
          await handle(parsePayload(contract.payload, decodeJson(message.value), `${meta.type}.v${meta.version}`));
          handled++;
        } catch (err) {
          // The live consumer meets the same message and dead-letters it; a replay must not stop at it.
          logger.error({ err, topic, partition, offset: meta.offset }, 'replay could not apply a message; skipped');
        }
      }
      const last = remaining.get(partition);
      if (last !== undefined && BigInt(message.offset) >= last) {
        remaining.delete(partition);
        if (remaining.size === 0) finish();
      }
    },
  });
  const timeoutMs = options.timeoutMs ?? 120_000;
  try {
    await within(done, timeoutMs, () => new Error(`replay of ${topic} did not reach the end in ${timeoutMs} ms`));
  } finally {
    await client.stopPrivateConsumer(consumer, groupId);
  }
  logger.info({ topic, handled }, 'projection rebuilt from the start of the topic');
  return handled;
}
