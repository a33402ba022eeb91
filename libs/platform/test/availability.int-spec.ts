import { randomUUID } from 'node:crypto';
import { KafkaJSNonRetriableError } from 'kafkajs';
import { allTopics, Topics } from '@worktrack/contracts';
import { ensureTopics, type KafkaClient } from '../src';
import { eventually, platformTestClient } from './helpers';

// Against the real broker: a consumer that crashed for
// good makes the app not ready and reaches the fatal listeners; the janitor
// deletes the private groups of replicas that are gone, and only those.

const prefix = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}av${randomUUID().slice(0, 6)}.`;
const clients: KafkaClient[] = [];
const client = (name: string): KafkaClient => {
  const c = platformTestClient(name, prefix);
  clients.push(c);
  return c;
};

beforeAll(async () => {
  await ensureTopics(await client('setup').admin(), allTopics(), prefix);
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
});

async function groupIds(c: KafkaClient): Promise<string[]> {
  return (await (await c.admin()).listGroups()).groups.map((g) => g.groupId);
}

describe('a consumer that crashed for good', () => {
  it('makes the consumers check fail and tells the fatal listeners; a healthy one does not', async () => {
    const c = client('crasher');
    const topic = c.topic(Topics.plateCommands);
    const fatal: string[] = [];
    c.onFatal((reason) => fatal.push(reason));
    await expect(c.assertConsumersRunning()).resolves.toBeUndefined();

    const groupId = c.group(`crash-${randomUUID().slice(0, 6)}`);
    const running = await c.startConsumer({
      groupId,
      topics: [topic],
      fromBeginning: true,
      concurrency: 1,
      eachMessage: () => Promise.reject(new KafkaJSNonRetriableError('poison')),
    });
    await expect(c.assertConsumersRunning()).resolves.toBeUndefined();
    await c.send(topic, [{ key: 'k', value: 'boom' }]);

    await eventually(() => fatal.length > 0, 'the fatal listener called');
    expect(fatal[0]).toContain(groupId);
    expect(fatal[0]).toContain('poison');
    await expect(c.assertConsumersRunning()).rejects.toThrow(new RegExp(`crashed: ${groupId.replace(/\./g, '\\.')}`));
    await running.stop();
  });
});

describe('the private group janitor', () => {
  it('deletes a gone replica’s Empty group of the family after two passes, never its own or one with members', async () => {
    const live = client('gw');
    const family = `${prefix}gateway.replies.`;
    const topic = live.topic(Topics.gatewayReplies);
    const start = (c: KafkaClient, groupId: string) =>
      c.startConsumer({ groupId, topics: [topic], fromBeginning: false, concurrency: 1, eachMessage: () => Promise.resolve() });

    // This replica's own group: the janitor watches the family from it.
    const own = `${family}${live.instanceId}`;
    const ownConsumer = await start(live, own);
    // A replica that is gone: its consumer left without deleting the group (Empty, as after a session timeout).
    const gone = `${family}dead-${randomUUID().slice(0, 6)}`;
    const goneClient = client('gone');
    await (await start(goneClient, gone)).consumer.disconnect();
    // A replica still running.
    const other = client('other');
    const alive = `${family}alive-${randomUUID().slice(0, 6)}`;
    const aliveConsumer = await start(other, alive);
    // Same prefix, another family: not the janitor's.
    const unrelated = `${prefix}sessions`;
    await (await start(goneClient, unrelated)).consumer.disconnect();

    const t0 = Date.now();
    expect(await live.janitor.sweep(t0)).toEqual([]); // first pass: seen Empty once
    expect(await live.janitor.sweep(t0 + 60_000)).toEqual([gone]);

    const groups = await groupIds(live);
    expect(groups).not.toContain(gone);
    expect(groups).toEqual(expect.arrayContaining([own, alive, unrelated]));
    await ownConsumer.stop();
    await aliveConsumer.stop();
  });
});
