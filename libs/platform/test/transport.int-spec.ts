import { randomUUID } from 'node:crypto';
import { Controller, Inject, Module, type DynamicModule, type INestMicroservice, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, Payload } from '@nestjs/microservices';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { allTopics, defineCommand, ErrorCode, Header, Topics } from '@worktrack/contracts';
import {
  CommandClient,
  ContractContext,
  createLogger,
  DomainError,
  ensureTopics,
  HandleCommand,
  KafkaClient,
  KafkaContractTransport,
  LOGGER,
  Metrics,
  requestDeadline,
} from '../src';
import { eventually, platformTestClient } from './helpers';

/** The reply topic's `max.message.bytes` (the broker default, about 1 MB, when the registry sets none). */
const REPLY_LIMIT = Topics.gatewayReplies.maxMessageBytes ?? 1_048_588;

class EchoV1 {
  @IsString() text!: string;
  @IsOptional() @IsInt() @Min(0) @Max(10_000) delayMs?: number;
  @IsOptional() @IsString() failWith?: string;
  /** Characters the server appends to its answer (an oversize reply). */
  @IsOptional() @IsInt() @Min(0) @Max(64_000_000) pad?: number;
}
class EchoResultV1 {
  @IsString() text!: string;
  @IsString() servedBy!: string;
}
const ECHO_FIELDS = new Set(['text', 'delayMs', 'failWith', 'pad']);
const isEcho = (p: unknown): p is EchoV1 =>
  typeof p === 'object' && p !== null && typeof (p as EchoV1).text === 'string' && Object.keys(p).every((k) => ECHO_FIELDS.has(k));
const Echo = defineCommand({ type: 'test.echo', version: 1, topic: 'identityCommands', payload: EchoV1, result: EchoResultV1 });
/** The same on the topic whose records may be 8 MiB (ingestion.commands). */
const BigEcho = defineCommand({ type: 'test.big-echo', version: 1, topic: 'ingestionCommands', payload: EchoV1, result: EchoResultV1 });

// A topic namespace of this file's own: no service of a parallel test file consumes it.
const prefix = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}rpc${randomUUID().slice(0, 6)}.`;
const clients: KafkaClient[] = [];

function kafka(name: string): { client: KafkaClient; metrics: Metrics } {
  const client = platformTestClient(name, prefix);
  clients.push(client);
  return { client, metrics: new Metrics(name) };
}

const handled: string[] = [];
const messageIds: string[] = [];
const SERVED_BY = Symbol('SERVED_BY');

async function answer(p: EchoV1, servedBy: string): Promise<EchoResultV1> {
  handled.push(p.text);
  if (p.delayMs) await new Promise((r) => setTimeout(r, p.delayMs));
  if (p.failWith === 'domain')
    throw new DomainError(ErrorCode.SESSION_NOT_FOUND, 'No such session.', [{ path: 'session_id', issue: 'unknown' }]);
  if (p.failWith === 'crash') throw new Error('database password is hunter2');
  if (p.failWith === 'bad-result') return { text: 42, servedBy } as unknown as EchoResultV1;
  if (p.pad) return { text: p.text + 'x'.repeat(p.pad), servedBy };
  return { text: p.text.length > 100 ? `${p.text.length} characters` : p.text, servedBy };
}

@Controller()
class EchoController {
  constructor(@Inject(SERVED_BY) private readonly servedBy: string) {}

  @HandleCommand(Echo)
  echo(@Payload() payload: EchoV1, @Ctx() ctx: ContractContext): Promise<EchoResultV1> {
    // The pipe hands over the payload validated: the contract's fields only, each of its type.
    if (!isEcho(payload)) throw new Error('payload not validated');
    messageIds.push(ctx.messageId);
    return answer(payload, this.servedBy);
  }
}

@Controller()
class BigEchoController {
  constructor(@Inject(SERVED_BY) private readonly servedBy: string) {}

  @HandleCommand(BigEcho)
  echo(@Payload() payload: EchoV1): Promise<EchoResultV1> {
    return answer(payload, this.servedBy);
  }
}

@Module({})
class EchoModule {
  static register(servedBy: string, controller: Type, metrics: Metrics): DynamicModule {
    return {
      module: EchoModule,
      controllers: [controller],
      providers: [
        { provide: SERVED_BY, useValue: servedBy },
        { provide: LOGGER, useValue: createLogger(servedBy, process.env.LOG_LEVEL ?? 'silent', servedBy) },
        { provide: Metrics, useValue: metrics },
      ],
    };
  }
}

/** A service replica: a Nest microservice whose only transport is KafkaContractTransport. */
async function startServer(
  name: string,
  group = 'echo',
  contract: typeof Echo = Echo,
): Promise<{ server: INestMicroservice; metrics: Metrics }> {
  const { client, metrics } = kafka(name);
  const strategy = new KafkaContractTransport(client, createLogger(name, process.env.LOG_LEVEL ?? 'silent', name), metrics, {
    commandTopic: contract.topic,
    commandGroup: group,
  });
  const server = await NestFactory.createMicroservice(
    EchoModule.register(name, contract === BigEcho ? BigEchoController : EchoController, metrics),
    { strategy, logger: false },
  );
  await server.listen();
  return { server, metrics };
}

async function startClient(name: string, timeoutMs = 8_000, validateCommands = true): Promise<CommandClient> {
  const { client, metrics } = kafka(name);
  const rpc = new CommandClient(client, createLogger(name, process.env.LOG_LEVEL ?? 'silent', name), metrics, {
    timeoutMs,
    validateCommands,
  });
  await rpc.start();
  return rpc;
}

beforeAll(async () => {
  const { client } = kafka('setup');
  await ensureTopics(await client.admin(), allTopics(), prefix);
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
});

describe('request/reply over Kafka through KafkaContractTransport (ADR 0002)', () => {
  it('answers a command with its validated result, and carries domain errors as codes', async () => {
    const { server } = await startServer('server-basic');
    const client = await startClient('client-basic').catch(async (err: unknown) => {
      await server.close();
      throw err;
    });
    try {
      await expect(client.send(Echo, { text: 'hello' }, { key: 'member-1' })).resolves.toEqual({ text: 'hello', servedBy: 'server-basic' });
      // The handler sees the message id (the requester's correlation id) through its context.
      expect(messageIds.at(-1)).toMatch(/^[0-9a-f-]{36}$/);
      const err = await client.send(Echo, { text: 'x', failWith: 'domain' }, { key: 'member-1' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DomainError);
      expect(err).toMatchObject({
        code: 'SESSION_NOT_FOUND',
        message: 'No such session.',
        details: [{ path: 'session_id', issue: 'unknown' }],
      });
      // An unexpected failure is INTERNAL and leaks nothing of its cause.
      const crash = await client
        .send(Echo, { text: 'y', failWith: 'crash' }, { key: 'member-1', requestId: 'req-42' })
        .catch((e: unknown) => e);
      expect(crash).toMatchObject({ code: 'INTERNAL' });
      expect((crash as Error).message).not.toContain('hunter2');
      expect((crash as Error).message).toContain('req-42');
      // A result outside its contract is refused where it is received (validated once).
      await expect(client.send(Echo, { text: 'z', failWith: 'bad-result' }, { key: 'member-1' })).rejects.toMatchObject({
        code: 'INTERNAL',
        message: 'A service answered with an invalid reply.',
      });
      // The client side refuses to send outside it, naming the field.
      await expect(client.send(Echo, { text: 7 } as unknown as EchoV1, { key: 'member-1' })).rejects.toThrow(/text/);
      // A client that leaves the check to the service (the gateway): the service refuses it,
      // INTERNAL with the request id, and the handler never runs.
      const trusting = await startClient('client-trusting', 8_000, false);
      try {
        const handledBefore = handled.length;
        await expect(trusting.send(Echo, { text: 7 } as unknown as EchoV1, { key: 'member-1', requestId: 'req-43' })).rejects.toMatchObject(
          { code: 'INTERNAL', message: expect.stringContaining('req-43') as unknown },
        );
        expect(handled.length).toBe(handledBefore);
      } finally {
        await trusting.stop();
      }
    } finally {
      await client.stop();
      await server.close();
    }
  });

  it('routes every reply to the replica that asked, across replicas and rebalances, losing none', async () => {
    const servers = [await startServer('server-a', 'echo-many'), await startServer('server-b', 'echo-many')];
    const gateways = [await startClient('gw-1'), await startClient('gw-2'), await startClient('gw-3')];
    const stopped = new Set<INestMicroservice>();
    const results: Array<Promise<void>> = [];
    const mismatches: string[] = [];
    const send = (gw: CommandClient, i: number): Promise<void> =>
      gw.send(Echo, { text: `req-${i}`, delayMs: i % 7 }, { key: `member-${i % 25}` }).then((r) => {
        if (r.text !== `req-${i}`) mismatches.push(`req-${i} got ${r.text}`);
      });
    let n = 0;
    const wave = (count: number): void => {
      for (let k = 0; k < count; k++, n++) results.push(send(gateways[n % gateways.length], n));
    };
    try {
      wave(150);
      // A server replica joins and another leaves while requests are in flight:
      // the service group rebalances twice; a new gateway replica joins too.
      servers.push(await startServer('server-c', 'echo-many'));
      wave(150);
      await servers[0].server.close();
      stopped.add(servers[0].server);
      gateways.push(await startClient('gw-4'));
      wave(200);
      const settled = await Promise.allSettled(results);
      const failed = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
      expect(failed.map((f) => String(f.reason))).toEqual([]);
      expect(mismatches).toEqual([]);
      expect(n).toBe(500);
    } finally {
      // Whatever failed, nothing of this test keeps consuming the topic the next tests use.
      await Promise.all(gateways.map((g) => g.stop()));
      await Promise.all(servers.filter((s) => !stopped.has(s.server)).map((s) => s.server.close()));
    }
  });

  it('answers UNAVAILABLE within the bound when no service replies, never hanging', async () => {
    const client = await startClient('client-timeout', 800);
    try {
      const started = Date.now();
      // No server consumes this namespace's sessions topic.
      const timeoutCommand = { ...Echo, topic: 'sessionsCommands' } as const;
      const err = await client.send(timeoutCommand, { text: 'nobody' }, { key: 'm' }).catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect(err).toMatchObject({ code: 'UNAVAILABLE' });
      expect(elapsed).toBeGreaterThanOrEqual(790);
      expect(elapsed).toBeLessThan(800 + 1_500);
    } finally {
      await client.stop();
    }
  });

  it('bounds all the commands of one request by its deadline: sent one after another, they answer within it', async () => {
    const { server } = await startServer('server-request-deadline', 'echo-request-deadline');
    const client = await startClient('client-request-deadline', 2_000);
    try {
      // The server's group may still be settling on a loaded machine: warm up until it answers.
      await eventually(
        () =>
          client.send(Echo, { text: 'warm-up' }, { key: 'rd' }).then(
            (r) => r.text === 'warm-up',
            () => false,
          ),
        'the server to answer a warm-up command',
      );
      const nobody = { ...Echo, topic: 'sessionsCommands' } as const;
      const started = Date.now();
      // A first command answered slowly (a lookup), then one nobody answers: each alone is within its
      // 2 s timeout, together they would take 3.5 s; the request's 2 s deadline bounds them both.
      const err = await requestDeadline
        .run(started + 2_000, async () => {
          await client.send(Echo, { text: 'slow lookup', delayMs: 1_500 }, { key: 'rd' });
          return client.send(nobody, { text: 'nobody' }, { key: 'rd' });
        })
        .catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect(err).toMatchObject({ code: 'UNAVAILABLE' });
      expect(elapsed).toBeGreaterThanOrEqual(1_990);
      expect(elapsed).toBeLessThan(2_000 + 1_000);

      // A command that would start past the request's deadline is refused at once, nothing sent.
      const late = Date.now();
      const refused = await requestDeadline
        .run(late - 1, () => client.send(Echo, { text: 'too late' }, { key: 'rd' }))
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'UNAVAILABLE' });
      expect(Date.now() - late).toBeLessThan(100);
      await new Promise((r) => setTimeout(r, 500));
      expect(handled).not.toContain('too late');
    } finally {
      await client.stop();
      await server.close();
    }
  });

  it('skips commands whose deadline has passed', async () => {
    const { server, metrics } = await startServer('server-deadline', 'echo-deadline');
    const client = await startClient('client-deadline');
    try {
      const { client: raw } = kafka('raw');
      const producer = await raw.producer();
      const stale = `stale-${randomUUID()}`;
      await producer.send({
        topic: `${prefix}${Topics.identityCommands.name}`,
        messages: [
          {
            key: 'm',
            value: JSON.stringify({ text: stale }),
            headers: {
              [Header.type]: 'test.echo',
              [Header.version]: '1',
              [Header.correlationId]: randomUUID(),
              [Header.replyTo]: `${prefix}${Topics.gatewayReplies.name}`,
              [Header.replyInstance]: 'nobody',
              [Header.deadline]: String(Date.now() - 1),
            },
          },
        ],
      });
      // A fresh command behind it on the same key is still served.
      await expect(client.send(Echo, { text: 'fresh' }, { key: 'm' })).resolves.toMatchObject({ text: 'fresh' });
      expect(handled).not.toContain(stale);
      const expired = await metrics.kafkaMessages.get();
      expect(expired.values.find((v) => v.labels.outcome === 'expired')?.value).toBeGreaterThanOrEqual(1);
    } finally {
      await client.stop();
      await server.close();
    }
  });

  it('drains on stop: the command in flight replies and commits, and is not handled again', async () => {
    const { server } = await startServer('server-drain', 'echo-drain');
    const client = await startClient('client-drain');
    const text = `slow-${randomUUID()}`;
    const reply = client.send(Echo, { text, delayMs: 1_500 }, { key: 'm' });
    await eventually(() => handled.includes(text), 'the slow command to start');
    const stopped = Date.now();
    await server.close();
    expect(Date.now() - stopped).toBeGreaterThanOrEqual(1_000); // it waited for the handler
    await expect(reply).resolves.toMatchObject({ text });
    // A new replica of the same group does not see the command again: its offset was committed.
    const { server: next } = await startServer('server-drain-2', 'echo-drain');
    await expect(client.send(Echo, { text: 'after' }, { key: 'm' })).resolves.toMatchObject({ servedBy: 'server-drain-2' });
    expect(handled.filter((t) => t === text)).toHaveLength(1);
    await next.close();
    await client.stop();
  });

  describe('one message never stops a service', () => {
    it('answers a reply too large for its topic with an error reply, and serves the next command of the same key', async () => {
      const { server, metrics } = await startServer('server-oversize', 'echo-oversize');
      const client = await startClient('client-oversize');
      try {
        const started = Date.now();
        // Half a megabyte over the reply topic's limit.
        const err = await client
          .send(Echo, { text: 'big', pad: REPLY_LIMIT + 500_000 }, { key: 'm', requestId: 'req-oversize' })
          .catch((e: unknown) => e);
        expect(err).toMatchObject({ code: 'INTERNAL' });
        expect((err as Error).message).toContain('req-oversize');
        expect(Date.now() - started).toBeLessThan(5_000); // an answer, not the requester's timeout
        // Replies that would have shared its produce request, and the next command, are served.
        const after = await Promise.all([
          client.send(Echo, { text: 'next' }, { key: 'm' }),
          client.send(Echo, { text: 'other' }, { key: 'n' }),
          client.send(Echo, { text: 'big-again', pad: REPLY_LIMIT + 1_000_000 }, { key: 'o' }).catch((e: unknown) => e),
        ]);
        expect(after[0]).toMatchObject({ text: 'next' });
        expect(after[1]).toMatchObject({ text: 'other' });
        expect(after[2]).toMatchObject({ code: 'INTERNAL' });
        const handledMetric = await metrics.kafkaMessages.get();
        expect(handledMetric.values.filter((v) => v.labels.outcome === 'unanswered')).toEqual([]);
      } finally {
        await client.stop();
        await server.close();
      }
    });

    it('refuses a request larger than its topic accepts at once (PAYLOAD_TOO_LARGE), without failing the requests sent with it', async () => {
      const { server } = await startServer('server-big-request', 'echo-big-request');
      const client = await startClient('client-big-request');
      try {
        const results = await Promise.all([
          client.send(Echo, { text: 'y'.repeat(1_200_000) }, { key: 'm' }).catch((e: unknown) => e),
          client.send(Echo, { text: 'small' }, { key: 'm' }),
          client.send(Echo, { text: 'small-2' }, { key: 'q' }),
        ]);
        expect(results[0]).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
        expect(results[1]).toMatchObject({ text: 'small' });
        expect(results[2]).toMatchObject({ text: 'small-2' });
      } finally {
        await client.stop();
        await server.close();
      }
    });

    it('carries a 5 MB command on a topic configured for it (an event batch of 100 × 32 KB fits)', async () => {
      const { server } = await startServer('server-big-topic', 'echo-big-topic', BigEcho);
      const client = await startClient('client-big-topic');
      try {
        await expect(client.send(BigEcho, { text: 'z'.repeat(5_000_000) }, { key: 'm' })).resolves.toEqual({
          text: '5000000 characters',
          servedBy: 'server-big-topic',
        });
        await expect(client.send(BigEcho, { text: 'after' }, { key: 'm' })).resolves.toMatchObject({ text: 'after' });
      } finally {
        await client.stop();
        await server.close();
      }
    });
  });
});
