import { randomUUID } from 'node:crypto';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, Payload } from '@nestjs/microservices';
import { IsInt, IsString } from 'class-validator';
import { allTopics, defineMessage, Header, Topics } from '@worktrack/contracts';
import {
  ContractContext,
  createLogger,
  ensureTopics,
  HandleEvents,
  KafkaClient,
  KafkaContractTransport,
  LOGGER,
  Metrics,
  readHeaders,
} from '../src';
import { eventually, platformTestClient, publish } from './helpers';

class StepV1 {
  @IsString() memberId!: string;
  @IsInt() seq!: number;
}
// Test messages ride a topic of this file's own namespace (no service reads it).
const Step = defineMessage({ type: 'test.step', version: 1, topic: 'plateCommands', payload: StepV1 });
const prefix = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}hb${randomUUID().slice(0, 6)}.`;
const clients: KafkaClient[] = [];

function client(name: string): KafkaClient {
  const c = platformTestClient(name, prefix);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  await ensureTopics(await client('setup').admin(), allTopics(), prefix);
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
});

/** Every call of the handler: the (member, seq) of its messages and whether it succeeded. */
const calls: Array<{ steps: string[]; offsets: string[]; ok: boolean }> = [];
/** What was applied, per member, in order. */
const applied: Record<string, number[]> = {};
let failFirstBatch = true;
const metrics = new Metrics('batches-test');

@Controller()
class StepsController {
  @HandleEvents(Step, { group: 'steps', maxAttempts: 2, maxBatch: 25 })
  steps(@Payload() steps: StepV1[], @Ctx() ctx: ContractContext): Promise<void> {
    const call = { steps: steps.map((s) => `${s.memberId}:${s.seq}`), offsets: ctx.metas.map((m) => m.offset), ok: false };
    calls.push(call);
    // The payloads arrive validated, one per message of the call.
    const valid = (s: StepV1) => typeof s.memberId === 'string' && Number.isInteger(s.seq) && Object.keys(s).length === 2;
    if (!steps.every(valid) || steps.length !== ctx.metas.length) throw new Error('payloads not validated');
    if (steps.length > 1 && failFirstBatch) {
      failFirstBatch = false;
      throw new Error('transient failure of a whole batch');
    }
    if (steps.some((s) => s.memberId === 'doomed')) throw new Error('always fails');
    for (const s of steps) (applied[s.memberId] ??= []).push(s.seq);
    call.ok = true;
    return Promise.resolve();
  }
}

@Module({
  controllers: [StepsController],
  providers: [
    { provide: LOGGER, useValue: createLogger('sub', process.env.LOG_LEVEL ?? 'silent', 'sub') },
    { provide: Metrics, useValue: metrics },
  ],
})
class StepsModule {}

describe('@HandleEvents through KafkaContractTransport: a partition’s messages together, committed together, in order per key', () => {
  it('hands consecutive messages over together, redelivers a failed batch one at a time, dead-letters only the poison, commits', async () => {
    const publisherClient = client('pub');
    const topic = `${prefix}${Topics.plateCommands.name}`;
    // Everything is on the topic before the consumer starts, so its first fetches hold many messages per partition.
    for (let seq = 1; seq <= 60; seq++) {
      await publish(publisherClient, Step, [
        { key: 'a', payload: { memberId: 'a', seq } },
        { key: 'b', payload: { memberId: 'b', seq } },
        ...(seq === 30 ? [{ key: 'a', payload: { memberId: 'doomed', seq } }] : []),
      ]);
    }
    // Unparseable, on member a's partition: dead-lettered alone, the run around it handled.
    const producer = await publisherClient.producer();
    await producer.send({
      topic,
      messages: [{ key: 'a', value: '{not json', headers: { [Header.type]: 'test.step', [Header.version]: '1' } }],
    });
    await publish(publisherClient, Step, [{ key: 'a', payload: { memberId: 'a', seq: 61 } }]);

    const strategy = new KafkaContractTransport(client('sub'), createLogger('sub', process.env.LOG_LEVEL ?? 'silent', 'sub'), metrics);
    const consumer = await NestFactory.createMicroservice(StepsModule, { strategy, logger: false });
    await consumer.listen();
    try {
      await eventually(() => (applied.a?.length ?? 0) === 61 && (applied.b?.length ?? 0) === 60, 'every step applied');
      // One member's messages are applied in order, each once, whatever was batched or retried.
      expect(applied.a).toEqual(Array.from({ length: 61 }, (_, i) => i + 1));
      expect(applied.b).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      expect(applied.doomed).toBeUndefined();

      // Several messages went in one call (at most maxBatch), each call in offset order.
      const sizes = calls.map((c) => c.steps.length);
      expect(Math.max(...sizes)).toBeGreaterThan(1);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(25);
      for (const c of calls) expect(c.offsets.map(Number)).toEqual([...c.offsets.map(Number)].sort((x, y) => x - y));

      // The first batch failed as a whole: each of its messages came again, alone.
      const failed = calls.find((c) => c.steps.length > 1 && !c.ok && !c.steps.some((s) => s.startsWith('doomed')));
      expect(failed).toBeDefined();
      for (const step of failed?.steps ?? []) {
        expect(calls.some((c) => c.ok && c.steps.length === 1 && c.steps[0] === step)).toBe(true);
      }

      // Poison goes to the dead-letter topic alone: the step that always fails and the unparseable one.
      const dlq: Array<{ error: string }> = [];
      const reader = client('dlq-reader').kafka.consumer({ groupId: `${prefix}dlq-reader`, sessionTimeout: 6_000 });
      await reader.connect();
      await reader.subscribe({ topic: `${prefix}${Topics.deadLetters.name}`, fromBeginning: true });
      await reader.run({
        eachMessage: ({ message }) => {
          dlq.push({ error: readHeaders(message.headers)['wt-dlq-error'] ?? '' });
          return Promise.resolve();
        },
      });
      await eventually(() => dlq.length >= 2, 'two dead letters', 20_000);
      await reader.disconnect();
      expect(dlq.map((d) => d.error).sort()).toEqual([expect.stringMatching(/always fails/), expect.stringMatching(/SyntaxError/)]);

      // Committed up to the end of every partition: nothing handled is delivered again.
      const admin = await publisherClient.admin();
      await eventually(async () => {
        const [committed] = await admin.fetchOffsets({ groupId: `${prefix}steps`, topics: [topic] });
        const ends = await admin.fetchTopicOffsets(topic);
        return ends.every(
          (end) => end.high === end.low || committed.partitions.find((p) => p.partition === end.partition)?.offset === end.high,
        );
      }, 'offsets committed to the end');
      const counts = await metrics.kafkaMessages.get();
      const handled = counts.values.filter((v) => v.labels.outcome === 'handled').reduce((n, v) => n + v.value, 0);
      expect(handled).toBe(121);
    } finally {
      await consumer.close();
    }
  });
});
