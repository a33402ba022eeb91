import { randomUUID } from 'node:crypto';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import { IsInt, IsString } from 'class-validator';
import { allTopics, defineMessage, Header, Topics } from '@worktrack/contracts';
import { createLogger, ensureTopics, HandleEvent, KafkaClient, KafkaContractTransport, LOGGER, Metrics, readHeaders } from '../src';
import { eventually, platformTestClient, publish } from './helpers';

class TickV1 {
  @IsString() memberId!: string;
  @IsInt() seq!: number;
}
// Test messages ride a topic of this file's own namespace (no service reads it).
const Tick = defineMessage({ type: 'test.tick', version: 1, topic: 'plateCommands', payload: TickV1 });
const prefix = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}mc${randomUUID().slice(0, 6)}.`;
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

const seen: Record<string, number[]> = {};
let flaky = 0;
const metrics = new Metrics('consumer-test');

@Controller()
class TicksController {
  @HandleEvent(Tick, { group: 'ticks', maxAttempts: 3 })
  tick(@Payload() tick: TickV1): Promise<void> {
    if (tick.memberId === 'flaky' && flaky++ < 2) throw new Error('transient');
    if (tick.memberId === 'doomed') throw new Error('always fails');
    (seen[tick.memberId] ??= []).push(tick.seq);
    return Promise.resolve();
  }
}

@Module({
  controllers: [TicksController],
  providers: [
    { provide: LOGGER, useValue: createLogger('sub', process.env.LOG_LEVEL ?? 'silent', 'sub') },
    { provide: Metrics, useValue: metrics },
  ],
})
class TicksModule {}

describe('@HandleEvent through KafkaContractTransport: at-least-once, ordered per key, poison to the dead-letter topic', () => {
  it('publishes with the contract validated, keeps one key in order, retries a failing handler, dead-letters poison without blocking', async () => {
    const publisherClient = client('pub');
    // The producer side refuses what the contract does not allow.
    await expect(publish(publisherClient, Tick, [{ key: 'm', payload: { memberId: 'm', seq: 'x' as unknown as number } }])).rejects.toThrow(
      /seq/,
    );

    const strategy = new KafkaContractTransport(client('sub'), createLogger('sub', process.env.LOG_LEVEL ?? 'silent', 'sub'), metrics);
    const consumer = await NestFactory.createMicroservice(TicksModule, { strategy, logger: false });
    await consumer.listen();

    const producer = await publisherClient.producer();
    const topic = `${prefix}${Topics.plateCommands.name}`;
    // Poison first on member a's partition: it must not block what follows.
    await producer.send({
      topic,
      messages: [{ key: 'a', value: '{not json', headers: { [Header.type]: 'test.tick', [Header.version]: '1' } }],
    });
    await producer.send({
      topic,
      messages: [{ key: 'a', value: JSON.stringify({ memberId: 'a' }), headers: { [Header.type]: 'test.tick', [Header.version]: '1' } }],
    });
    await producer.send({
      topic,
      messages: [
        { key: 'a', value: JSON.stringify({ memberId: 'a', seq: 0 }), headers: { [Header.type]: 'test.tick', [Header.version]: '9' } },
      ],
    });
    for (let seq = 1; seq <= 40; seq++) {
      await publish(publisherClient, Tick, [
        { key: 'a', payload: { memberId: 'a', seq } },
        { key: 'b', payload: { memberId: 'b', seq } },
      ]);
    }
    await publish(publisherClient, Tick, [{ key: 'flaky', payload: { memberId: 'flaky', seq: 1 } }]);
    await publish(publisherClient, Tick, [{ key: 'doomed', payload: { memberId: 'doomed', seq: 1 } }]);

    await eventually(
      () => (seen.a?.length ?? 0) === 40 && (seen.b?.length ?? 0) === 40 && (seen.flaky?.length ?? 0) === 1,
      'all ticks handled',
    );
    expect(seen.a).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(seen.b).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(flaky).toBe(3); // failed twice, handled on the third attempt

    // Four messages reached the dead-letter topic, each with its error: bad JSON,
    // a contract violation, an unknown version, and the handler that kept failing.
    const dlq: Array<{ error: string; key: string }> = [];
    const reader = client('dlq-reader').kafka.consumer({ groupId: `${prefix}dlq-reader`, sessionTimeout: 6_000 });
    await reader.connect();
    await reader.subscribe({ topic: `${prefix}${Topics.deadLetters.name}`, fromBeginning: true });
    await reader.run({
      eachMessage: ({ message }) => {
        const h = readHeaders(message.headers);
        dlq.push({ error: h['wt-dlq-error'] ?? '', key: message.key?.toString() ?? '' });
        return Promise.resolve();
      },
    });
    await eventually(() => dlq.length >= 4, 'four dead letters', 20_000);
    await reader.disconnect();
    expect(dlq.map((d) => d.error).join('\n')).toMatch(/SyntaxError/);
    expect(dlq.map((d) => d.error).join('\n')).toMatch(/ContractViolation: test\.tick\.v1: seq/);
    expect(dlq.map((d) => d.error).join('\n')).toMatch(/unsupported version 9/);
    expect(dlq.find((d) => d.key === 'doomed')?.error).toMatch(/always fails/);
    const counts = await metrics.kafkaMessages.get();
    expect(counts.values.filter((v) => v.labels.outcome === 'dead_lettered').reduce((n, v) => n + v.value, 0)).toBe(4);

    await consumer.close();
  });
});
