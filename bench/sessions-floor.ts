/**
 * The raw ceiling of a session command: the hops the design gives
 * one command, made with the design's packages and nothing else, measured
 * with the same CPU sampler as the stack.
 *
 *   npm run bench:sessions -- --floor-only --rate 300 --seconds 20
 *
 * (`bench:sessions` runs it after the stack's own window, at the same rate.)
 * Two processes, as `npm start` runs the stack's two (the gateway and the
 * services' host):
 *
 * - **edge** — `node:http`; the member's D-5 count in Redis (the gateway's
 *   sliding-log script, one EVALSHA); the command produced through the
 *   stack's `KafkaClient.send` (kafkajs's idempotent producer, acks=all) to a
 *   12-partition topic keyed by member; the
 *   answer once the reply arrives on the 6-partition reply topic this process
 *   reads in a group of its own.
 * - **service** — reads the commands (every partition at once, as the
 *   services' command consumers do); one Postgres statement writes the session
 *   row and its outbox row together; produces the reply; then, as the
 *   outbox relay does, one statement takes the outbox row and the event is
 *   produced to a 12-partition topic; a second group (correlation's place)
 *   reads the events and writes one row per event.
 *
 * No validation, no authentication, no framework, no metrics, no logging
 * (consumers are plain kafkajs; only the producer path is the platform's):
 * what is left is what these hops cost with kafkajs, pg, ioredis and Node on
 * this machine — the floor under any code that keeps the design's hops.
 * With `--floor-via-http` the edge sends each command over a keep-alive HTTP
 * connection to the service, which answers in the response: what the
 * command and reply hops over Kafka cost, by difference.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Agent, createServer, request } from 'node:http';
import Redis from 'ioredis';
import { Kafka, logLevel, type Consumer, type Message } from 'kafkajs';
import { Pool } from 'pg';
import { Topics } from '@worktrack/contracts';
// Loading the platform applies its kafkajs request-queue fix (kafkajs-request-queue.ts) to this process too.
import {
  AppConfig,
  CONSUMER_MAX_WAIT_MS,
  CONSUMER_SESSION_TIMEOUT_MS,
  consumerWaits,
  createLogger,
  ensureTopics,
  KafkaClient,
  loadConfig,
  waitForJoin,
} from '@worktrack/platform';
// The gateway's D-5 script itself: the ceiling pays what the gateway's Redis pays per request.
import { SLIDING_LOG_LUA } from '../apps/gateway/src/rate-limit/rate-limiter';
import { CpuSampler, formatCpu } from './cpu-sampler';

const PREFIX = 'bench-floor.';
/** The partitions of the stack's topics (sessions.commands, gateway.replies, sessions.events), kept an hour. */
const TOPICS = {
  commands: { ...Topics.sessionsCommands, name: 'commands', retentionMs: 3_600_000 },
  replies: { ...Topics.gatewayReplies, name: 'replies', retentionMs: 3_600_000 },
  events: { ...Topics.sessionsEvents, name: 'events', retentionMs: 3_600_000 },
};
const topic = (t: { name: string }): string => `${PREFIX}${t.name}`;
const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/worktrack';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function kafka(clientId: string): Kafka {
  return new Kafka({ clientId, brokers: BROKERS, logLevel: logLevel.ERROR });
}

/**
 * The stack's own producer path, `KafkaClient.send`: kafkajs's idempotent
 * producer (acks=all), the sends queued while a produce request is out
 * leaving together as the next one.
 */
function producerOf(app: string): (topic: string, message: Message) => Promise<void> {
  const config = loadConfig(AppConfig, { ...process.env, INSTANCE_ID: `${app}-${process.pid}`, LOG_LEVEL: 'warn' });
  const client = new KafkaClient(app, config, createLogger(app, config.LOG_LEVEL, config.INSTANCE_ID));
  return (topic, message) => client.send(topic, [message]);
}

async function consume(
  client: Kafka,
  groupId: string,
  from: string,
  concurrency: number,
  handle: (value: Buffer, headers: Record<string, unknown>) => Promise<void>,
): Promise<Consumer> {
  const consumer = client.consumer({ groupId, sessionTimeout: CONSUMER_SESSION_TIMEOUT_MS, ...consumerWaits(CONSUMER_MAX_WAIT_MS) });
  await consumer.connect();
  await consumer.subscribe({ topics: [from] });
  const joined = waitForJoin(consumer);
  await consumer.run({
    partitionsConsumedConcurrently: concurrency,
    // Offsets committed every 5 s, not after every fetch (the stack's periodic commits, ADR 0009).
    autoCommitInterval: 5_000,
    eachMessage: ({ message }) => handle(message.value ?? Buffer.alloc(0), message.headers ?? {}),
  });
  await joined;
  return consumer;
}

/** A POST to `port` on a keep-alive connection; resolves with the answer's body. */
function post(agent: Agent, port: number, headers: Record<string, string>, data: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        agent,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** Commands and replies over Kafka (the design), or over HTTP straight to the service (`via` = `http`: what the two Kafka hops cost). */
type Via = 'kafka' | 'http';

async function edge(port: number, via: Via): Promise<void> {
  const client = kafka(`floor-edge-${process.pid}`);
  const send = producerOf('floor-edge');
  const redis = new Redis(REDIS_URL);
  redis.defineCommand('worktrackRateLimit', { numberOfKeys: 1, lua: SLIDING_LOG_LUA }); // EVALSHA, as the gateway calls it
  const pending = new Map<string, (value: Buffer) => void>();
  const group = `${PREFIX}replies.${process.pid}`;
  const replies =
    via === 'kafka'
      ? await consume(client, group, topic(TOPICS.replies), TOPICS.replies.partitions, (value, headers) => {
          const id = String(headers['correlation-id']);
          pending.get(id)?.(value);
          pending.delete(id);
          return Promise.resolve();
        })
      : undefined;
  const toService = new Agent({ keepAlive: true, maxSockets: 64 });
  const command = async (member: string, body: unknown): Promise<Buffer> => {
    const value = JSON.stringify({ member, body });
    if (via === 'http') return (await post(toService, port + 1, {}, value)).body;
    const id = randomUUID();
    const reply = new Promise<Buffer>((resolve) => pending.set(id, resolve));
    await send(topic(TOPICS.commands), { key: member, value, headers: { 'correlation-id': id } });
    return reply;
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const member = String(req.headers['x-member']);
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        const [allowed] = await redis.worktrackRateLimit(`${PREFIX}rl:${member}`, 600_000, 60_000, randomUUID());
        if (!allowed) return void res.writeHead(429).end();
        const value = await command(member, body);
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': value.length }).end(value);
      })().catch((err: unknown) => res.writeHead(500).end(String(err)));
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  // Leaves no group of its own behind.
  process.once('SIGINT', () => {
    void (async () => {
      await replies?.disconnect();
      const admin = client.admin();
      await admin.connect();
      await admin.deleteGroups([group]).catch(() => undefined);
      process.exit(0);
    })();
  });
  process.stdout.write('ready\n');
}

async function service(port: number, via: Via): Promise<void> {
  const client = kafka(`floor-service-${process.pid}`);
  const send = producerOf('floor-service');
  const pool = new Pool({ connectionString: DATABASE_URL, max: 10 });
  const relay = async (outboxId: string): Promise<void> => {
    const { rows } = await pool.query<{ key: string; payload: unknown }>(
      'DELETE FROM bench_floor.outbox WHERE id = $1 RETURNING key, payload',
      [outboxId],
    );
    if (rows[0]) await send(topic(TOPICS.events), { key: rows[0].key, value: JSON.stringify(rows[0].payload) });
  };
  const handle = async (value: Buffer): Promise<string> => {
    const { member, body } = JSON.parse(value.toString('utf8')) as { member: string; body: { intent_text?: string } };
    const { rows } = await pool.query<{ session: unknown; outbox_id: string }>(
      `WITH s AS (
         INSERT INTO bench_floor.sessions (id, member, intent, state, started_at) VALUES ($1, $2, $3, 'active', now()) RETURNING *
       ), o AS (
         INSERT INTO bench_floor.outbox (key, payload) SELECT member, to_jsonb(s) FROM s RETURNING id
       )
       SELECT to_jsonb(s) AS session, (SELECT id FROM o) AS outbox_id FROM s`,
      [randomUUID(), member, body.intent_text ?? ''],
    );
    void relay(rows[0].outbox_id);
    return JSON.stringify({ data: rows[0].session });
  };
  const commands =
    via === 'kafka'
      ? await consume(client, `${PREFIX}service`, topic(TOPICS.commands), TOPICS.commands.partitions, async (value, headers) => {
          const reply = await handle(value);
          await send(topic(TOPICS.replies), { value: reply, headers: { 'correlation-id': String(headers['correlation-id']) } });
        })
      : undefined;
  if (via === 'http') {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        handle(Buffer.concat(chunks)).then(
          (reply) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) }).end(reply),
          (err: unknown) => res.writeHead(500).end(String(err)),
        );
      });
    });
    server.listen(port + 1, '127.0.0.1');
    await once(server, 'listening');
  }
  const consumers = [
    ...(commands ? [commands] : []),
    await consume(client, `${PREFIX}correlation`, topic(TOPICS.events), 4, async (value) => {
      const session = JSON.parse(value.toString('utf8')) as { id: string; member: string };
      await pool.query('INSERT INTO bench_floor.links (session_id, member, at) VALUES ($1, $2, now())', [session.id, session.member]);
    }),
  ];
  process.once('SIGINT', () => void Promise.all(consumers.map((c) => c.disconnect())).finally(() => process.exit(0)));
  process.stdout.write('ready\n');
}

async function prepare(): Promise<void> {
  const admin = kafka('floor-setup').admin();
  await admin.connect();
  try {
    await ensureTopics(admin, Object.values(TOPICS), PREFIX);
  } finally {
    await admin.disconnect();
  }
  const pool = new Pool({ connectionString: DATABASE_URL, max: 1 });
  try {
    await pool.query(`
      CREATE SCHEMA IF NOT EXISTS bench_floor;
      CREATE TABLE IF NOT EXISTS bench_floor.sessions (id uuid PRIMARY KEY, member text NOT NULL, intent text NOT NULL, state text NOT NULL, started_at timestamptz NOT NULL);
      CREATE INDEX IF NOT EXISTS sessions_member ON bench_floor.sessions (member, started_at DESC);
      CREATE TABLE IF NOT EXISTS bench_floor.outbox (id bigserial PRIMARY KEY, key text NOT NULL, payload jsonb NOT NULL);
      CREATE TABLE IF NOT EXISTS bench_floor.links (session_id uuid NOT NULL, member text NOT NULL, at timestamptz NOT NULL);
      TRUNCATE bench_floor.sessions, bench_floor.outbox, bench_floor.links;`);
  } finally {
    await pool.end();
  }
}

function startRole(role: 'edge' | 'service', port: number, via: Via): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--max-semi-space-size=64', __filename, role, String(port), via], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`floor ${role} exited with ${code}`)));
    child.stdout?.once('data', () => resolve(child));
  });
}

export interface FloorResult {
  commands: number;
  seconds: number;
  p99: number;
  errors: number;
  cpuLines: string[];
  cpuMsPerCommand: number;
}

/** Starts the two processes, sends `rate` commands a second for `seconds` (after 5 s of warm-up) over 40 members, and stops them. */
export async function runFloor(rate: number, seconds: number, via: Via = 'kafka', port = 3998): Promise<FloorResult> {
  await prepare();
  const children = [await startRole('service', port, via), await startRole('edge', port, via)];
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  try {
    const sampler = new CpuSampler(new Map(children.map((c, i) => [c.pid ?? -1, i === 0 ? 'floor-service' : 'floor-edge'])), DATABASE_URL);
    const send = (member: number): Promise<number> =>
      new Promise((resolve) => {
        const data = JSON.stringify({ intent_text: `floor ${randomUUID().slice(0, 8)}`, source: 'timer' });
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/v1/sessions',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), 'x-member': `m${member}` },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', () => resolve(0));
        req.end(data);
      });
    const warmup = 5;
    const total = Math.round(rate * (warmup + seconds));
    const latencies: number[] = [];
    let errors = 0;
    const inFlight = new Set<Promise<void>>();
    const t0 = performance.now() + 50;
    let window: Awaited<ReturnType<CpuSampler['start']>> | undefined;
    let from = 0;
    for (let n = 0; n < total; n++) {
      const due = t0 + (n * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      const measured = n >= rate * warmup;
      if (measured && !window) {
        window = await sampler.start();
        from = performance.now();
      }
      const p: Promise<void> = send(n % 40).then((status) => {
        if (measured) {
          latencies.push(performance.now() - due);
          if (status !== 201) errors++;
        }
        inFlight.delete(p);
      });
      inFlight.add(p);
    }
    await Promise.all(inFlight);
    const cpu = await (window ?? (await sampler.start())).end();
    const elapsed = (performance.now() - from) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      commands: latencies.length,
      seconds: elapsed,
      p99: latencies[Math.floor(latencies.length * 0.99)] ?? NaN,
      errors,
      cpuLines: formatCpu(cpu, latencies.length, 'command'),
      cpuMsPerCommand: cpu.totalMs / Math.max(latencies.length, 1),
    };
  } finally {
    agent.destroy();
    for (const c of children) c.kill('SIGINT');
    await Promise.all(children.filter((c) => c.exitCode === null).map((c) => once(c, 'exit')));
  }
}

if (require.main === module) {
  const [role, port, via] = process.argv.slice(2) as [string, string, Via];
  const run =
    role === 'edge'
      ? edge(Number(port), via)
      : role === 'service'
        ? service(Number(port), via)
        : Promise.reject(new Error(`unknown role ${role}`));
  run.catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
