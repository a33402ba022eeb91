/**
 * Benchmark (not a test): round trip of a gateway command over Kafka —
 * CommandClient → command topic → KafkaContractTransport (a Nest microservice
 * with one @HandleCommand controller) → reply topic → the same
 * replica. Uses the broker of KAFKA_BROKERS (default 127.0.0.1:9092; run
 * `npm run infra:up` first) in a private topic namespace, a trivial handler,
 * and prints p50/p95/p99 sequentially and under concurrency.
 *   npm run bench:rpc [-- --requests 2000 --concurrency 32]
 */
import { randomUUID } from 'node:crypto';
import { hostname, cpus } from 'node:os';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Payload } from '@nestjs/microservices';
import { IsString } from 'class-validator';
import { allTopics, defineCommand } from '@worktrack/contracts';
import {
  AppConfig,
  CommandClient,
  createLogger,
  ensureTopics,
  HandleCommand,
  KafkaClient,
  KafkaContractTransport,
  loadConfig,
  LOGGER,
  Metrics,
} from '@worktrack/platform';

class PingV1 {
  @IsString() text!: string;
}
const Ping = defineCommand({ type: 'bench.ping', version: 1, topic: 'identityCommands', payload: PingV1, result: PingV1 });

@Controller()
class PingConsumer {
  @HandleCommand(Ping)
  ping(@Payload() p: PingV1): Promise<PingV1> {
    return Promise.resolve(p);
  }
}

@Module({ controllers: [PingConsumer] })
class PingModule {}

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** CPU of this process (client and server together): user + system µs since `since`. */
const cpuMs = (since: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

function summary(label: string, samples: number[], wallMs: number, cpu: number): string {
  const s = [...samples].sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(2).padStart(7);
  return `${label.padEnd(26)} n=${String(s.length).padStart(5)}  p50 ${f(percentile(s, 50))} ms  p95 ${f(percentile(s, 95))} ms  p99 ${f(percentile(s, 99))} ms  max ${f(s[s.length - 1])} ms  ${(s.length / (wallMs / 1000)).toFixed(0).padStart(6)} req/s  cpu ${(cpu / s.length).toFixed(3)} ms/req`;
}

async function main(): Promise<void> {
  const requests = arg('requests', 2000);
  const concurrency = arg('concurrency', 32);
  const prefix = `bench${randomUUID().slice(0, 6)}.`;
  const mk = (name: string): KafkaClient => {
    const config = loadConfig(AppConfig, {
      ...process.env,
      KAFKA_TOPIC_PREFIX: prefix,
      INSTANCE_ID: `${name}-${randomUUID().slice(0, 6)}`,
    });
    return new KafkaClient(name, config, createLogger(name, 'error', config.INSTANCE_ID));
  };
  const admin = mk('bench-admin');
  await ensureTopics(await admin.admin(), allTopics(), prefix);
  const serverClient = mk('bench-server');
  const serverMetrics = new Metrics('s');
  const strategy = new KafkaContractTransport(serverClient, createLogger('s', 'error', 's'), serverMetrics, {
    commandTopic: 'identityCommands',
    commandGroup: 'bench',
  });
  const server = await NestFactory.createMicroservice(
    {
      module: PingModule,
      providers: [
        { provide: LOGGER, useValue: createLogger('s', 'error', 's') },
        { provide: Metrics, useValue: serverMetrics },
      ],
    },
    { strategy, logger: false },
  );
  await server.listen();
  const clientKafka = mk('bench-client');
  const client = new CommandClient(clientKafka, createLogger('c', 'error', 'c'), new Metrics('c'), { timeoutMs: 10_000 });
  await client.start();

  const one = async (i: number): Promise<number> => {
    const t = process.hrtime.bigint();
    await client.send(Ping, { text: String(i) }, { key: `member-${i % 100}` });
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  for (let i = 0; i < 200; i++) await one(i); // warm-up

  const sequential: number[] = [];
  let started = Date.now();
  let cpu = process.cpuUsage();
  for (let i = 0; i < requests / 4; i++) sequential.push(await one(i));
  const seqWall = Date.now() - started;
  const seqCpu = cpuMs(cpu);

  const concurrent: number[] = [];
  let next = 0;
  started = Date.now();
  cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) concurrent.push(await one(next++));
    }),
  );
  const conWall = Date.now() - started;
  const conCpu = cpuMs(cpu);

  console.log(`\nbench:rpc — Kafka request/reply round trip (${hostname()}, ${cpus().length} cores, node ${process.version})`);
  console.log(summary('sequential (1 in flight)', sequential, seqWall, seqCpu));
  console.log(summary(`concurrent (${concurrency} in flight)`, concurrent, conWall, conCpu));

  await client.stop();
  await server.close();
  const a = await admin.admin();
  await a.deleteTopics({ topics: allTopics().map((t) => `${prefix}${t.name}`) }).catch(() => undefined);
  await Promise.all([serverClient.close(), clientKafka.close(), admin.close()]);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
