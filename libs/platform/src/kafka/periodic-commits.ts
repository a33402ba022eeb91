import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, EachMessageHandler, TopicPartitionOffset } from 'kafkajs';
import type { AppLogger } from '../logging/logger';

const keyOf = (topic: string, partition: number): string => `${topic}|${partition}`;

/**
 * Commits a consumer's handled offsets every `intervalMs` instead of after
 * every fetched batch (ADR 0009).
 *
 * kafkajs with autoCommit commits once per batch, and it fetches a broker's
 * partitions again only after that commit: on the request/reply path every
 * command (and every reply) paid an OffsetCommit round trip before the next
 * fetch could start. Here an offset is still recorded only once its handler
 * resolved (at-least-once, as before); what changes is that a crash or a
 * rebalance redelivers up to `intervalMs` of handled messages rather than
 * none, which request/reply already tolerates (handlers are idempotent,
 * requesters drop a second reply, commands past their deadline are skipped).
 * Stopping pauses fetching, waits for the handlers in flight and commits what
 * they handled before leaving the group, so a clean shutdown or deploy
 * redelivers nothing.
 */
export class PeriodicCommits {
  private readonly handled = new Map<string, TopicPartitionOffset>();
  private inFlight = 0;
  private timer?: NodeJS.Timeout;
  private committing: Promise<void> = Promise.resolve();

  constructor(
    private readonly consumer: Consumer,
    private readonly intervalMs: number,
    private readonly logger: AppLogger,
  ) {}

  /** The handler kafkajs runs: records the next offset of a partition once the message was handled. */
  wrap(handler: EachMessageHandler): EachMessageHandler {
    return async (payload) => {
      this.inFlight++;
      try {
        await handler(payload);
        const { topic, partition, message } = payload;
        this.handled.set(keyOf(topic, partition), { topic, partition, offset: (BigInt(message.offset) + 1n).toString() });
      } finally {
        this.inFlight--;
      }
    };
  }

  start(): void {
    this.timer = setInterval(() => void this.commit(), this.intervalMs);
    this.timer.unref();
    // After a rebalance, offsets of partitions now owned by another member are not this member's to commit.
    this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) => {
      for (const [key, { topic, partition }] of this.handled) {
        if (!payload.memberAssignment[topic]?.includes(partition)) this.handled.delete(key);
      }
    });
  }

  /** Commits what was handled since the last commit; one commit at a time, failures are retried at the next tick. */
  commit(): Promise<void> {
    this.committing = this.committing.then(async () => {
      if (this.handled.size === 0) return;
      const offsets = [...this.handled.values()];
      this.handled.clear();
      try {
        await this.consumer.commitOffsets(offsets);
      } catch (err) {
        // A rebalance in progress or a broker away: keep the offsets unless newer ones were handled meanwhile.
        for (const o of offsets) {
          const key = keyOf(o.topic, o.partition);
          if (!this.handled.has(key)) this.handled.set(key, o);
        }
        this.logger.warn({ err, partitions: offsets.length }, 'offset commit failed; retrying at the next interval');
      }
    });
    return this.committing;
  }

  /** Stops fetching, waits (bounded) for the handlers in flight, commits, leaves the group. */
  async stop(topics: string[], timeoutMs = 30_000): Promise<void> {
    clearInterval(this.timer);
    this.consumer.pause(topics.map((topic) => ({ topic })));
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight > 0 && Date.now() < deadline) await sleep(10);
    await this.commit();
    await this.consumer.disconnect();
  }
}

/** How often the request/reply consumers (commands, replies) commit. */
export const REQUEST_REPLY_COMMIT_INTERVAL_MS = 500;
