import { randomUUID } from 'node:crypto';
import type { EachMessagePayload } from 'kafkajs';
import { allTopics, Topics } from '@worktrack/contracts';
import { ensureTopics, type KafkaClient } from '../src';
import { eventually, platformTestClient } from './helpers';

// PeriodicCommits (ADR 0009) against the real broker: offsets are committed
// off the fetch path, only for handled messages, and a clean stop commits
// what was handled, so the group's next member starts right after it.

const prefix = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}pc${randomUUID().slice(0, 6)}.`;
const clients: KafkaClient[] = [];
const client = (name: string): KafkaClient => {
  const c = platformTestClient(name, prefix);
  clients.push(c);
  return c;
};
// Each test its own topic of this file's namespace (no service reads them).
const topicOf = (c: KafkaClient, key: 'plateCommands' | 'correlationCommands' = 'plateCommands'): string => c.topic(Topics[key]);

beforeAll(async () => {
  await ensureTopics(await client('setup').admin(), allTopics(), prefix);
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
});

async function committed(c: KafkaClient, groupId: string, topic = topicOf(c)): Promise<number> {
  const offsets = await (await c.admin()).fetchOffsets({ groupId, topics: [topic] });
  return offsets[0].partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
}

describe('PeriodicCommits', () => {
  it('commits handled offsets within the interval while running, and what was handled on a clean stop', async () => {
    const c = client('committer');
    const groupId = c.group(`pc-${randomUUID().slice(0, 6)}`);
    const topic = topicOf(c);
    const seen: string[] = [];
    let hold: (() => void) | undefined;
    const handler = async ({ message }: EachMessagePayload): Promise<void> => {
      const value = String(message.value);
      if (value === 'slow') await new Promise<void>((r) => (hold = r));
      seen.push(value);
    };
    const consumer = await c.startConsumer({
      groupId,
      topics: [topic],
      fromBeginning: true,
      concurrency: Topics.plateCommands.partitions,
      commitIntervalMs: 300,
      eachMessage: handler,
    });
    await c.send(
      topic,
      Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `m${i}` })),
    );
    await eventually(() => seen.length === 10, 'ten messages handled');
    await eventually(async () => (await committed(c, groupId)) >= 10, 'the offsets committed', 5_000).catch(() => undefined);
    expect(await committed(c, groupId)).toBe(10);

    // A handler still running when stop() is called finishes and is committed before the member leaves.
    await c.send(topic, [{ key: 'k0', value: 'slow' }]);
    await eventually(() => hold !== undefined, 'the slow handler started');
    const stopping = consumer.stop();
    await new Promise((r) => setTimeout(r, 200));
    expect(seen).not.toContain('slow');
    hold?.();
    await stopping;
    expect(seen).toContain('slow');
    expect(await committed(c, groupId)).toBe(11);

    // The group's next member starts after everything handled: nothing is redelivered.
    const again: string[] = [];
    const next = await client('next').startConsumer({
      groupId,
      topics: [topic],
      fromBeginning: true,
      concurrency: 1,
      commitIntervalMs: 300,
      eachMessage: ({ message }) => {
        again.push(String(message.value));
        return Promise.resolve();
      },
    });
    await c.send(topic, [{ key: 'k1', value: 'after' }]);
    await eventually(() => again.length > 0, 'the next member reads');
    await new Promise((r) => setTimeout(r, 300));
    expect(again).toEqual(['after']);
    await next.stop();
  });

  it('does not commit a message whose handler has not finished', async () => {
    const c = client('uncommitted');
    const groupId = c.group(`pc-${randomUUID().slice(0, 6)}`);
    const topic = topicOf(c, 'correlationCommands');
    let started = false;
    const consumer = await c.startConsumer({
      groupId,
      topics: [topic],
      fromBeginning: true,
      concurrency: 1,
      commitIntervalMs: 100,
      eachMessage: async () => {
        started = true;
        await new Promise((r) => setTimeout(r, 1_500));
      },
    });
    await c.send(topic, [{ key: 'k', value: 'long' }]);
    await eventually(() => started, 'the handler started');
    await new Promise((r) => setTimeout(r, 600)); // several intervals pass while the handler runs
    expect(await committed(c, groupId, topic)).toBe(0);
    await consumer.stop();
    expect(await committed(c, groupId, topic)).toBe(1);
  });
});
