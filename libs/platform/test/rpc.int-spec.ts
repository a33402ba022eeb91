import { randomUUID } from 'node:crypto';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { allTopics, defineCommand, ErrorCode, Header, Topics } from '@worktrack/contracts';
import { CommandClient, CommandServer, createLogger, DomainError, ensureTopics, KafkaClient, Metrics } from '../src';
import { eventually, platformTestClient } from './helpers';

class EchoV1 {
  @IsString() text!: string;
  @IsOptional() @IsInt() @Min(0) @Max(10_000) delayMs?: number;
  @IsOptional() @IsString() failWith?: string;
}
class EchoResultV1 {
  @IsString() text!: string;
  @IsString() servedBy!: string;
}
const Echo = defineCommand({ type: 'test.echo', version: 1, topic: 'identityCommands', payload: EchoV1, result: EchoResultV1 });

// A topic namespace of this file's own: no service of a parallel test file consumes it.
const prefix = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}rpc${randomUUID().slice(0, 6)}.`;
const clients: KafkaClient[] = [];

function kafka(name: string): { client: KafkaClient; metrics: Metrics } {
  const client = platformTestClient(name, prefix);
  clients.push(client);
  return { client, metrics: new Metrics(name) };
}

const handled: string[] = [];

async function startServer(name: string, group = 'echo'): Promise<{ server: CommandServer; metrics: Metrics }> {
  const { client, metrics } = kafka(name);
  const server = new CommandServer(client, createLogger(name, 'silent', name), metrics, {
    topic: 'identityCommands',
    groupId: group,
    sessionTimeoutMs: 6_000,
  });
  server.handle(Echo, async (p) => {
    handled.push(p.text);
    if (p.delayMs) await new Promise((r) => setTimeout(r, p.delayMs));
    if (p.failWith === 'domain')
      throw new DomainError(ErrorCode.SESSION_NOT_FOUND, 'No such session.', [{ path: 'session_id', issue: 'unknown' }]);
    if (p.failWith === 'crash') throw new Error('database password is hunter2');
    if (p.failWith === 'bad-result') return { text: 42, servedBy: name } as unknown as EchoResultV1;
    return { text: p.text, servedBy: name };
  });
  await server.start();
  return { server, metrics };
}

async function startClient(name: string, timeoutMs = 8_000): Promise<CommandClient> {
  const { client, metrics } = kafka(name);
  const rpc = new CommandClient(client, createLogger(name, 'silent', name), metrics, { timeoutMs, sessionTimeoutMs: 6_000 });
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

describe('request/reply over Kafka (ADR 0002)', () => {
  it('answers a command with its validated result, and carries domain errors as codes', async () => {
    const { server } = await startServer('server-basic');
    const client = await startClient('client-basic').catch(async (err: unknown) => {
      await server.stop();
      throw err;
    });
    try {
      await expect(client.send(Echo, { text: 'hello' }, { key: 'member-1' })).resolves.toEqual({ text: 'hello', servedBy: 'server-basic' });
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
      // The server side refuses to answer outside its contract.
      await expect(client.send(Echo, { text: 'z', failWith: 'bad-result' }, { key: 'member-1' })).rejects.toMatchObject({
        code: 'INTERNAL',
      });
      // The client side refuses to send outside it.
      await expect(client.send(Echo, { text: 7 } as unknown as EchoV1, { key: 'member-1' })).rejects.toThrow(/text/);
    } finally {
      await client.stop();
      await server.stop();
    }
  });

  it('routes every reply to the replica that asked, across replicas and rebalances, losing none', async () => {
    const servers = [await startServer('server-a', 'echo-many'), await startServer('server-b', 'echo-many')];
    const gateways = [await startClient('gw-1'), await startClient('gw-2'), await startClient('gw-3')];
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
    wave(150);
    // A server replica joins and another leaves while requests are in flight:
    // the service group rebalances twice; a new gateway replica joins too.
    servers.push(await startServer('server-c', 'echo-many'));
    wave(150);
    await servers[0].server.stop();
    gateways.push(await startClient('gw-4'));
    wave(200);
    const settled = await Promise.allSettled(results);
    const failed = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    expect(failed.map((f) => String(f.reason))).toEqual([]);
    expect(mismatches).toEqual([]);
    expect(n).toBe(500);
    await Promise.all(gateways.map((g) => g.stop()));
    await Promise.all(servers.slice(1).map((s) => s.server.stop()));
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
      await server.stop();
    }
  });

  it('drains on stop: the command in flight replies and commits, and is not handled again', async () => {
    const { server } = await startServer('server-drain', 'echo-drain');
    const client = await startClient('client-drain');
    const text = `slow-${randomUUID()}`;
    const reply = client.send(Echo, { text, delayMs: 1_500 }, { key: 'm' });
    await eventually(() => handled.includes(text), 'the slow command to start');
    const stopped = Date.now();
    await server.stop();
    expect(Date.now() - stopped).toBeGreaterThanOrEqual(1_000); // it waited for the handler
    await expect(reply).resolves.toMatchObject({ text });
    // A new replica of the same group does not see the command again: its offset was committed.
    const { server: next } = await startServer('server-drain-2', 'echo-drain');
    await expect(client.send(Echo, { text: 'after' }, { key: 'm' })).resolves.toMatchObject({ servedBy: 'server-drain-2' });
    expect(handled.filter((t) => t === text)).toHaveLength(1);
    await next.stop();
    await client.stop();
  });
});
