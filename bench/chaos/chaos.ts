/**
 * The chaos run: the whole system as users deploy it — a
 * three-node KRaft cluster (replication factor 3, min.insync.replicas=2, every
 * producer idempotent with acks=all), replicas of every app — under a steady
 * load from many members while faults land at seeded random moments: kill -9
 * of one replica of each app (the supervisor restarts it), kill -9 of one
 * broker (restarted on its data), termination of the apps' Postgres backends
 * (this run's database only), a Redis pause (≤ 3 s: the Redis is shared).
 * Then a rolling restart of every app under the same load (SIGTERM one
 * replica at a time, the next when it is ready again).
 *
 * The client keeps a ledger of every request and its answer and retries 503s
 * and network errors with the same key (external ids for events, the
 * idempotency key for session starts; pause/resume are retried and a 409
 * after an unanswered attempt means that attempt applied). Plate assignments
 * have no idempotency key in the API, so an unanswered one is not retried:
 * it must have applied once or not at all. At the end, read back through the
 * API: every event answered 202 stored exactly once and linked to the
 * session that was live when it was sent; every session answered 201 there
 * once, in the state the ledger expects; no plate day over capacity, every
 * assignment answered 201 there once; consumer lag back to 0 within 30 s of
 * the last fault. Used by `npm run chaos` (bench/chaos.bench.ts) and, with
 * smaller parameters, by e2e/chaos.e2e-spec.ts.
 */
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Redis from 'ioredis';
import { ConfigResourceTypes } from 'kafkajs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import { Client } from 'pg';
import { allTopics } from '@worktrack/contracts';
import { AppConfig, createLogger, ensureDatabase, ensureTopics, KafkaClient, loadConfig } from '@worktrack/platform';
import { freePort, mainOf, repoRoot, runCreateMember } from '@worktrack/testing';
import { createSupervisor, type SupervisorLike } from '../supervisor';

export type AppName = 'gateway' | 'identity' | 'ingestion' | 'correlation' | 'sessions' | 'plate' | 'connectors' | 'webhooks' | 'reporting';

export interface ChaosOptions {
  /** Seeds the fault schedule (which replica, which broker, when). */
  readonly seed: number;
  /** Replicas per app; an app left out is not started (0 is not allowed for gateway/identity/ingestion/sessions/plate/correlation). */
  readonly replicas: Readonly<Partial<Record<AppName, number>>>;
  readonly members: number;
  /** Events per batch (one POST /activity/events). */
  readonly batch: number;
  /** Load before the first fault and after the last one, in seconds. */
  readonly settleS: number;
  /** Pause between faults: uniformly random in [min, max] seconds. */
  readonly gapS: readonly [number, number];
  /** Pause of each member's client between two steps, in milliseconds. */
  readonly thinkMs: number;
  readonly log: (line: string) => void;
}

/**
 * The short variant, lean for a shared two-core machine (`npm run chaos -- --short`
 * and the e2e tier): two replicas of the gateway, ingestion and sessions, one of
 * identity, correlation, plate and webhooks (connectors takes no part in the load); the same
 * faults, fewer members, shorter gaps.
 */
export const SHORT_CHAOS: Omit<ChaosOptions, 'seed' | 'log'> = {
  replicas: { gateway: 2, identity: 1, ingestion: 2, correlation: 1, sessions: 2, plate: 1, webhooks: 1 },
  members: 6,
  batch: 10,
  settleS: 5,
  gapS: [3, 6],
  thinkMs: 250,
};

export interface ChaosReport {
  seed: number;
  replicas: Partial<Record<AppName, number>>;
  members: number;
  durationS: number;
  topics: { count: number; replicationFactor: number[]; minInsyncReplicas: string[] };
  requests: number;
  answered2xx: number;
  answered503: number;
  answered429: number;
  /** 5xx other than 503 (none allowed). */
  answered5xx: number;
  networkErrors: number;
  /** Final answers the ledger cannot account for: not the success, not 429/503/network (retried), not a 409 after an unanswered pause/resume (none allowed). */
  unexpectedAnswers: number;
  faults: string[];
  rollingRestart: { restarted: number; durationS: number; requests: number; answered5xx: number; answered503: number };
  events: {
    acknowledged: number;
    stored: number;
    lost: number;
    doubled: number;
    misLinked: number;
    linkedAfterMs: number;
    /** Not linked to their session at the first read-back (lag already 0), linked by the end of the wait: healed late (ADR 0016). */
    healedLate: number;
    /** Events the link audit re-announced, by the live ingestion replicas' counters (a restarted replica's count is gone). */
    auditReannounced: number;
  };
  sessions: { started: number; stored: number; lost: number; doubled: number; wrongState: number };
  /**
   * When webhooks runs: `session.started` messages at a receiver of the run for the sessions started (D-54, D-55).
   * lost: a started session without one; doubled: a session with more than one webhook-id (a re-consumed
   * record made a second message); redelivered: the same webhook-id received again (at-least-once, allowed).
   */
  webhooks?: { expected: number; received: number; lost: number; doubled: number; redelivered: number };
  plate: {
    assigned: number;
    unanswered: number;
    stored: number;
    lost: number;
    doubled: number;
    unansweredApplied: number;
    daysOverCapacity: number;
    days: number;
  };
  /** Consumer lag back to 0 this long after the load ended (-1: not within 30 s); the last fault was sinceLastFaultS before. */
  lag: { zeroAfterMs: number; lastTotal: number; sinceLastFaultS: number };
  problems: string[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** mulberry32: a small seeded PRNG, so a seed replays the same schedule. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The probe's value once it resolves (a passing error, such as metadata not yet propagated, is retried). */
async function retrying<T>(what: string, timeoutMs: number, probe: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await probe();
    } catch (err) {
      if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: err });
      await sleep(500);
    }
  }
}

async function until(what: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await probe().catch(() => false)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(200);
  }
}

const ready = (url: string): Promise<boolean> =>
  fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3_000) }).then(async (r) => {
    await r.arrayBuffer();
    return r.status === 200;
  });

/**
 * A client port whose next five ports (three nodes × client + controller) are
 * free too, below the ephemeral range: a JVM takes seconds to bind under load,
 * and an ephemeral port picked now could meanwhile be taken by any outgoing
 * connection on the machine.
 */
async function freeClusterPort(random: () => number): Promise<number> {
  const isFree = (port: number): Promise<boolean> =>
    new Promise((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
  for (;;) {
    const port = 20_000 + 2 * Math.floor(random() * 5_000);
    const free = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => isFree(port + i)));
    if (free.every(Boolean)) return port;
  }
}

interface Member {
  readonly index: number;
  readonly memberId: string;
  readonly token: string;
}

/** What one member's client expects to find at the end. */
interface MemberLedger {
  /** Session ids answered 201, in order, with the key that made each. */
  sessions: string[];
  /** Live session's expected state after the last answered command. */
  expectedState: 'active' | 'paused';
  /** external id -> the session live when the event was sent. */
  events: Map<string, string>;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const { log } = options;
  const random = seededRandom(options.seed);
  const id = randomUUID().slice(0, 6);
  const started = Date.now();
  const root = repoRoot();
  const clusterPort = await freeClusterPort(Math.random); // not the seeded schedule's random: runs of one seed may overlap
  const brokers = [0, 2, 4].map((d) => `127.0.0.1:${clusterPort + d}`).join(',');
  const clusterDir = join(root, '.infra', `kafka-cluster-${clusterPort}`);
  const kafkaTemplateDir = join(root, '.infra', `kafka-${clusterPort}`);
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const database = `wt_chaos_${id}`;
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${database}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    MIGRATE_ON_START: 'true',
    KAFKA_BROKERS: brokers,
    KAFKA_TOPIC_PREFIX: `chaos${id}.`,
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: redisUrl,
    REQUEST_TIMEOUT_MS: '5000',
    SHUTDOWN_TIMEOUT_MS: '10000',
    KAFKA_GROUP_JANITOR_INTERVAL_MS: '5000',
    // The link audit (ADR 0016) on a short cycle, so that a link lost under the faults heals within the run's wait.
    LINK_AUDIT_INTERVAL_MS: '5000',
    LINK_AUDIT_SETTLE_MS: '10000',
  };
  const infra = (cmd: string): number =>
    spawnSync('bash', [join(root, 'scripts', 'infra.sh'), cmd], {
      stdio: ['ignore', 'ignore', 'inherit'],
      // A busy shared machine can take minutes to elect and list three nodes.
      env: {
        ...process.env,
        KAFKA_NODES: '3',
        KAFKA_PORT: String(clusterPort),
        KAFKA_BROKERS: '',
        INFRA_READY_TIMEOUT: process.env.INFRA_READY_TIMEOUT ?? '300',
      },
    }).status ?? 1;

  let supervisor: SupervisorLike | undefined;
  let setupKafka: KafkaClient | undefined;
  let receiver: Server | undefined;
  const cleanup = async (): Promise<void> => {
    receiver?.closeAllConnections();
    receiver?.close();
    await supervisor?.stop(15_000).catch(() => undefined);
    await setupKafka?.close().catch(() => undefined);
    infra('kafka-down');
    rmSync(clusterDir, { recursive: true, force: true });
    rmSync(kafkaTemplateDir, { recursive: true, force: true });
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  };

  try {
    // ------------------------------------------------------------ the stack
    log(`seed ${options.seed}; three-node cluster on ${brokers}; database ${database}`);
    if (infra('kafka-up') !== 0) {
      const tails = [1, 2, 3].map((node) => {
        const dir = join(clusterDir, `node-${node}`);
        const pid = existsSync(join(dir, 'kafka.pid')) ? readFileSync(join(dir, 'kafka.pid'), 'utf8').trim() : '?';
        const out = existsSync(join(dir, 'logs', 'stdout.log')) ? readFileSync(join(dir, 'logs', 'stdout.log'), 'utf8') : '';
        return `node ${node} (pid ${pid}, ${existsSync(`/proc/${pid}`) ? 'running' : 'gone'}): ${out.split('\n').slice(-6).join('\n  ')}`;
      });
      throw new Error(`the three-node cluster did not start\n${tails.join('\n')}`);
    }
    const config = loadConfig(AppConfig, env);
    setupKafka = new KafkaClient('chaos-setup', config, createLogger('chaos-setup', 'warn', 'chaos-setup'));
    const admin = await setupKafka.admin();
    await ensureTopics(admin, allTopics(), config.KAFKA_TOPIC_PREFIX);
    const topicNames = allTopics().map((t) => `${config.KAFKA_TOPIC_PREFIX}${t.name}`);
    // A new topic reaches every node's metadata cache a moment after it is created.
    const metadata = await retrying('topic metadata of the new topics', 60_000, () => admin.fetchTopicMetadata({ topics: topicNames }));
    const replicationFactor = [...new Set(metadata.topics.flatMap((t) => t.partitions.map((p) => p.replicas.length)))];
    const described = await retrying("the new topics' configs", 60_000, () =>
      admin.describeConfigs({
        includeSynonyms: false,
        resources: topicNames.map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: ['min.insync.replicas'] })),
      }),
    );
    const minInsyncReplicas = [...new Set(described.resources.flatMap((r) => r.configEntries.map((e) => e.configValue)))];
    log(
      `${topicNames.length} topics: replication factor ${replicationFactor.join('/')}, min.insync.replicas ${minInsyncReplicas.join('/')}`,
    );
    await ensureDatabase(dbUrl.toString());

    // Every replica's output (JSON lines, with the request id of a 500) is kept under .infra/logs/ after the run.
    const logDir = join(root, '.infra', 'logs', `chaos-${id}`);
    mkdirSync(logDir, { recursive: true });
    log(`replica logs: ${logDir}`);
    supervisor = await createSupervisor({ log });
    const replicas: Array<{ name: string; app: AppName; url: string }> = [];
    for (const [app, count] of Object.entries(options.replicas) as Array<[AppName, number]>) {
      for (let r = 1; r <= count; r++) {
        const port = await freePort();
        const name = `${app}-${r}`;
        replicas.push({ name, app, url: `http://127.0.0.1:${port}` });
        supervisor.add(name, {
          command: process.execPath,
          args: ['--enable-source-maps', mainOf(app)],
          cwd: root,
          env: {
            ...env,
            HTTP_PORT: String(port),
            INSTANCE_ID: `${name}-${id}`,
            // The run's receiver is on loopback, plain http; retries on a short schedule.
            ...(app === 'webhooks' ? { FEED_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '0,1000,2000,5000,10000,20000' } : {}),
          },
          onOutput: (chunk) => appendFileSync(join(logDir, `${name}.log`), chunk),
        });
      }
    }
    const allReady = async (): Promise<boolean> => (await Promise.all(replicas.map((r) => ready(r.url)))).every(Boolean);
    const bootMs = await until('every replica ready', 300_000, allReady);
    log(`${replicas.length} replicas ready after ${bootMs} ms`);
    const gateways = replicas.filter((r) => r.app === 'gateway').map((r) => r.url);

    const members: Member[] = Array.from({ length: options.members }, (_, index) => {
      const r = runCreateMember(['--workspace', `chaos-${id}`, '--email', `c${index}-${id}@example.com`], env as Record<string, string>);
      if (r.status !== 0) throw new Error(`create-member failed: ${r.stderr}`);
      const line = JSON.parse(r.stdout.trim()) as { member_id: string; token: string };
      return { index, memberId: line.member_id, token: line.token };
    });
    log(`${members.length} members`);

    // ------------------------------------------------------------ a webhook receiver (D-53 … D-55)
    /** session id → the webhook-ids of its `session.started` messages, and how many requests came. */
    const hookIds = new Map<string, Set<string>>();
    let hookRequests = 0;
    let hookPort = 0;
    if (options.replicas.webhooks) {
      receiver = createHttpServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          hookRequests++;
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { session_id?: string } };
          const sessionId = body.data.session_id;
          if (body.type === 'session.started' && sessionId) {
            hookIds.set(sessionId, (hookIds.get(sessionId) ?? new Set()).add(String(req.headers['webhook-id'])));
          }
          res.writeHead(204).end();
        });
      });
      hookPort = await freePort();
      await new Promise<void>((resolve) => receiver!.listen(hookPort, '127.0.0.1', resolve));
    }

    // ------------------------------------------------------------ the client
    const counts = { requests: 0, ok: 0, unavailable: 0, tooMany: 0, server: 0, network: 0, unexpectedAnswers: 0 };
    const problems: string[] = [];
    let rollingWindow: { requests: number; server: number; unavailable: number } | undefined;
    let nextGateway = 0;

    type Answer = { status: number; body: unknown } | { status: 'network'; error: string };
    const call = async (member: Member, method: string, path: string, body?: unknown): Promise<Answer> => {
      const gateway = gateways[nextGateway++ % gateways.length];
      counts.requests++;
      if (rollingWindow) rollingWindow.requests++;
      try {
        const res = await fetch(`${gateway}/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${member.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(15_000),
        });
        const text = await res.text();
        if (res.status < 300) counts.ok++;
        else if (res.status === 503) {
          counts.unavailable++;
          if (rollingWindow) rollingWindow.unavailable++;
        } else if (res.status === 429) counts.tooMany++;
        else if (res.status >= 500) {
          counts.server++;
          if (rollingWindow) rollingWindow.server++;
          problems.push(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
        }
        return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
      } catch (err) {
        counts.network++;
        return { status: 'network', error: err instanceof Error ? err.message : String(err) };
      }
    };
    const retryable = (a: Answer): boolean => a.status === 'network' || a.status === 503 || a.status === 429;
    const backoff = (attempt: number): Promise<void> => sleep(Math.min(200 * 2 ** attempt, 2_000));
    const unexpected = (what: string, a: Answer): void => {
      counts.unexpectedAnswers++;
      problems.push(`${what}: unexpected ${String(a.status)} ${JSON.stringify('body' in a ? a.body : a.error).slice(0, 200)}`);
    };
    const dataOf = (a: Answer): Record<string, unknown> => (a as { body: { data: Record<string, unknown> } }).body.data;

    /** Retries until an answer that is not retryable; the last answer and whether an earlier attempt went unanswered. */
    const untilAnswered = async (member: Member, method: string, path: string, body?: unknown) => {
      let unanswered = false;
      for (let attempt = 0; ; attempt++) {
        const a = await call(member, method, path, body);
        if (!retryable(a)) return { answer: a, unanswered };
        if (a.status !== 429) unanswered = true;
        await backoff(attempt);
      }
    };

    const ledgers = new Map<string, MemberLedger>(
      members.map((m) => [m.memberId, { sessions: [], expectedState: 'active', events: new Map() }]),
    );

    if (receiver) {
      // The workspace's first member is its owner (D-14).
      const { answer } = await untilAnswered(members[0], 'POST', '/webhook-endpoints', {
        url: `http://127.0.0.1:${hookPort}/hook`,
        event_types: ['session.started'],
      });
      if (answer.status !== 201) throw new Error(`webhook endpoint: ${JSON.stringify(answer)}`);
      log('webhook endpoint registered');
    }
    const plateDate = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const plateAssigned = new Map<string, { assignee: string; date: string }>(); // title -> where the 201 said it landed
    const plateUnanswered = new Map<string, string>(); // title -> assignee (503 / network: not retried)
    let stopLoad = false;

    const memberLoop = async (member: Member): Promise<void> => {
      const ledger = ledgers.get(member.memberId)!;
      const teammate = members[(member.index + 1) % members.length];
      for (let step = 0; !stopLoad; step++) {
        // A new timer session every 8 steps (it closes the previous one, D-23).
        if (step % 8 === 0) {
          const key = `chaos-${id}-${member.index}-${step}`;
          const { answer } = await untilAnswered(member, 'POST', '/sessions', {
            intent_text: `chaos ${step}`,
            source: 'timer',
            idempotency_key: key,
          });
          if (answer.status !== 201) unexpected(`start session ${key}`, answer);
          else {
            ledger.sessions.push(String(dataOf(answer).session_id));
            ledger.expectedState = 'active';
          }
        }
        const session = ledger.sessions.at(-1);
        if (session === undefined) continue;
        // A batch of events, resent with the same external ids until a 202.
        const ids = Array.from({ length: options.batch }, (_, i) => `c-${id}-${member.index}-${step}-${i}`);
        const now = Date.now();
        const events = ids.map((external_id, i) => ({
          source_type: 'chaos',
          event_type: 'tool.call',
          external_id,
          occurred_at: new Date(now + i).toISOString(),
          payload: { step, i },
        }));
        const sent = await untilAnswered(member, 'POST', '/activity/events', { events });
        if (sent.answer.status !== 202) unexpected('events', sent.answer);
        else for (const x of ids) ledger.events.set(x, session);
        // Pause or resume every third step.
        if (step % 3 === 2) {
          const command = ledger.expectedState === 'active' ? 'pause' : 'resume';
          const { answer, unanswered } = await untilAnswered(member, 'POST', `/sessions/${session}/${command}`);
          if (answer.status === 200 || (answer.status === 409 && unanswered)) {
            ledger.expectedState = command === 'pause' ? 'paused' : 'active';
          } else unexpected(`${command} ${session}`, answer);
        }
        // A plate assignment to the teammate every fourth step; not retried when unanswered.
        if (step % 4 === 1) {
          const title = `chaos ${id} ${member.index}-${step}`;
          for (let attempt = 0; ; attempt++) {
            const a = await call(member, 'POST', '/plate/assign', { assignee_id: teammate.memberId, title, plate_date: plateDate });
            if (a.status === 201) plateAssigned.set(title, { assignee: teammate.memberId, date: String(dataOf(a).plate_date) });
            else if (a.status === 503 || a.status === 'network') plateUnanswered.set(title, teammate.memberId);
            else if (a.status === 429) {
              await backoff(attempt);
              continue;
            } else unexpected(`plate ${title}`, a);
            break;
          }
        }
        await sleep(options.thinkMs);
      }
    };
    const load = Promise.all(members.map((m) => memberLoop(m)));
    const loadStarted = Date.now();

    // ------------------------------------------------------------ the faults
    const faults: string[] = [];
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const killReplica = (app: AppName) => async (): Promise<void> => {
      const name = pick(replicas.filter((r) => r.app === app)).name;
      const child = supervisor!.child(name);
      if (!child?.pid) throw new Error(`${name} is not running`);
      child.kill('SIGKILL');
      const downAt = Date.now();
      await until(`${name} restarted`, 60_000, () =>
        Promise.resolve(supervisor!.child(name) !== undefined && supervisor!.child(name) !== child),
      );
      await until(`${name} ready`, 180_000, () => ready(replicas.find((r) => r.name === name)!.url));
      faults.push(`kill -9 ${name} (ready again after ${Date.now() - downAt} ms)`);
    };
    const killBroker = async (): Promise<void> => {
      const node = 1 + Math.floor(random() * 3);
      const pid = Number(readFileSync(join(clusterDir, `node-${node}`, 'kafka.pid'), 'utf8').trim());
      process.kill(pid, 'SIGKILL');
      const downMs = Math.round(3_000 + random() * 7_000);
      await sleep(downMs);
      const at = Date.now();
      if (infra('kafka-up') !== 0) throw new Error(`broker node ${node} did not restart`);
      faults.push(`kill -9 broker node ${node} (down ${downMs} ms, back after ${Date.now() - at} ms more)`);
    };
    const terminateBackends = async (): Promise<void> => {
      const pg = new Client({ connectionString: serverUrl });
      await pg.connect();
      const r = await pg.query<{ terminated: boolean }>(
        'SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [database],
      );
      await pg.end();
      faults.push(`pg_terminate_backend: ${r.rows.filter((x) => x.terminated).length} backends of ${database}`);
    };
    const pauseRedis = async (): Promise<void> => {
      const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      await redis.call('CLIENT', 'PAUSE', '2500', 'ALL');
      redis.disconnect();
      await sleep(2_500);
      faults.push('Redis CLIENT PAUSE 2500 ms (all clients)');
    };
    const schedule: Array<[string, () => Promise<void>]> = [
      ...[...new Set(replicas.map((r) => r.app))].map((app): [string, () => Promise<void>] => [`kill ${app}`, killReplica(app)]),
      ['kill broker', killBroker],
      ['terminate backends', terminateBackends],
      ['pause redis', pauseRedis],
    ];
    for (let i = schedule.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [schedule[i], schedule[j]] = [schedule[j], schedule[i]];
    }
    await sleep(options.settleS * 1000);
    for (const [what, inject] of schedule) {
      await sleep((options.gapS[0] + random() * (options.gapS[1] - options.gapS[0])) * 1000);
      log(`fault: ${what}`);
      await inject();
      log(`  ${faults.at(-1)}`);
    }
    const lastFault = Date.now();

    // ------------------------------------------------------- rolling restart
    await sleep(options.settleS * 1000);
    log('rolling restart: SIGTERM one replica at a time, the next once it is ready again');
    rollingWindow = { requests: 0, server: 0, unavailable: 0 };
    const rollingStarted = Date.now();
    for (const replica of replicas) {
      const child = supervisor.child(replica.name);
      if (!child?.pid) throw new Error(`${replica.name} is not running`);
      child.kill('SIGTERM');
      await until(`${replica.name} restarted`, 60_000, () =>
        Promise.resolve(supervisor!.child(replica.name) !== undefined && supervisor!.child(replica.name) !== child),
      );
      await until(`${replica.name} ready`, 180_000, () => ready(replica.url));
    }
    const rolling = { ...rollingWindow, restarted: replicas.length, durationS: Math.round((Date.now() - rollingStarted) / 1000) };
    rollingWindow = undefined;
    log(
      `rolling restart done in ${rolling.durationS} s: ${rolling.requests} requests, ${rolling.unavailable} 503, ${rolling.server} other 5xx`,
    );

    await sleep(options.settleS * 1000);
    stopLoad = true;
    await load;
    const loadEnded = Date.now();
    log(`load done after ${Math.round((loadEnded - loadStarted) / 1000)} s: ${counts.requests} requests`);

    // ------------------------------------------------------- consumer lag
    const totalLag = async (): Promise<number> => {
      const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(config.KAFKA_TOPIC_PREFIX));
      const live = (await admin.describeGroups(groups)).groups.filter((g) => g.state === 'Stable').map((g) => g.groupId);
      let lag = 0;
      for (const groupId of live) {
        for (const { topic, partitions } of await admin.fetchOffsets({ groupId })) {
          const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
          for (const p of partitions) {
            const committed = Number(p.offset);
            const end = ends.get(p.partition) ?? 0;
            // -1: nothing committed yet; counts as lag only when the partition has messages.
            lag += Math.max(0, end - (committed < 0 ? 0 : committed));
          }
        }
      }
      return lag;
    };
    let lastTotal = -1;
    let zeroAfterMs = -1;
    while (Date.now() - loadEnded < 30_000) {
      lastTotal = await totalLag();
      if (lastTotal === 0) {
        zeroAfterMs = Date.now() - loadEnded;
        break;
      }
      await sleep(500);
    }
    if (zeroAfterMs < 0) problems.push(`consumer lag ${lastTotal} 30 s after the load ended`);

    // ------------------------------------------------------- read back through the API
    const pages = async (member: Member, path: string): Promise<Array<Record<string, unknown>>> => {
      const items: Array<Record<string, unknown>> = [];
      let cursor: string | null = null;
      do {
        const sep = path.includes('?') ? '&' : '?';
        const { answer } = await untilAnswered(
          member,
          'GET',
          `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        if (answer.status !== 200) throw new Error(`GET ${path}: ${String(answer.status)}`);
        const body = (answer as { body: { data: Array<Record<string, unknown>>; meta: { cursor: string | null } } }).body;
        items.push(...body.data);
        cursor = body.meta.cursor;
      } while (cursor);
      return items;
    };

    const eventCheck = async () => {
      let acknowledged = 0;
      let stored = 0;
      let lost = 0;
      let doubled = 0;
      let misLinked = 0;
      const examples: Array<{ member: Member; externalId: string; occurredAt: string; expected: string; actual: unknown }> = [];
      for (const member of members) {
        const ledger = ledgers.get(member.memberId)!;
        const seen = new Map<string, Array<unknown>>();
        const occurred = new Map<string, string>();
        for (const e of await pages(member, '/activity/events?source_type=chaos')) {
          const x = String(e.external_id);
          seen.set(x, [...(seen.get(x) ?? []), e.session_id]);
          occurred.set(x, String(e.occurred_at));
        }
        acknowledged += ledger.events.size;
        for (const [x, sessions] of seen) {
          stored += sessions.length;
          if (sessions.length > 1) doubled += sessions.length - 1;
          const expected = ledger.events.get(x);
          if (expected !== undefined && sessions[0] !== expected) {
            misLinked++;
            if (examples.length < 3)
              examples.push({ member, externalId: x, occurredAt: occurred.get(x) ?? '?', expected, actual: sessions[0] });
          }
        }
        for (const x of ledger.events.keys()) if (!seen.has(x)) lost++;
      }
      return { acknowledged, stored, lost, doubled, misLinked, examples };
    };
    // Links converge: a link lost under the faults is healed by ingestion's link audit (ADR 0016: every
    // 5 s here, events older than 10 s) — the check waits for it, bounded, and counts what healed late.
    let events = await eventCheck();
    const firstMisLinked = events.misLinked;
    const linkWait = Date.now();
    while (events.misLinked > 0 && Date.now() - linkWait < 60_000) {
      await sleep(1_000);
      events = await eventCheck();
    }
    const linkedAfterMs = events.misLinked === 0 ? Date.now() - loadEnded : -1;
    const healedLate = Math.max(0, firstMisLinked - events.misLinked);
    if (firstMisLinked > 0)
      log(`links: ${firstMisLinked} not linked at the first read-back, ${healedLate} healed within ${Date.now() - linkWait} ms`);
    const auditReannounced = (
      await Promise.all(
        replicas
          .filter((r) => r.app === 'ingestion')
          .map(async (r) => {
            const text = await fetch(`${r.url}/metrics`)
              .then((res) => (res.ok ? res.text() : ''))
              .catch(() => '');
            const m = /^worktrack_link_audit_events_total\{[^}]*outcome="reannounced"[^}]*\} (\d+)/m.exec(text);
            return m ? Number(m[1]) : 0;
          }),
      )
    ).reduce((a, b) => a + b, 0);
    // What a mislink looks like: the event, the session it should have and the one it has, with their intervals.
    for (const x of events.examples) {
      const listed = await pages(x.member, '/sessions');
      const interval = (id: unknown): string => {
        const s = listed.find((l) => l.session_id === id);
        return s ? `${String(id)} [${String(s.started_at)}, ${String(s.closed_at)})` : String(id);
      };
      problems.push(`mislinked ${x.externalId} at ${x.occurredAt}: expected ${interval(x.expected)}, linked ${interval(x.actual)}`);
    }

    const sessions = { started: 0, stored: 0, lost: 0, doubled: 0, wrongState: 0 };
    for (const member of members) {
      const ledger = ledgers.get(member.memberId)!;
      const listed = await pages(member, '/sessions');
      const ids = listed.map((s) => String(s.session_id));
      sessions.started += ledger.sessions.length;
      sessions.stored += ids.length;
      sessions.lost += ledger.sessions.filter((s) => !ids.includes(s)).length;
      sessions.doubled += ids.length - new Set(ledger.sessions).size; // every start is retried until answered: no extra session
      for (const s of listed) {
        const last = String(s.session_id) === ledger.sessions.at(-1);
        const want = last ? ledger.expectedState : 'closed';
        if (s.state !== want) sessions.wrongState++;
      }
    }

    let webhooks: ChaosReport['webhooks'];
    if (options.replicas.webhooks) {
      const expected = [...ledgers.values()].flatMap((l) => l.sessions);
      const missing = (): number => expected.filter((s) => !hookIds.has(s)).length;
      const hookWait = Date.now();
      while (missing() > 0 && Date.now() - hookWait < 60_000) await sleep(500);
      const doubled = [...hookIds.values()].reduce((n, ids) => n + ids.size - 1, 0);
      const received = [...hookIds.values()].reduce((n, ids) => n + ids.size, 0);
      webhooks = { expected: expected.length, received, lost: missing(), doubled, redelivered: Math.max(0, hookRequests - received) };
    }

    const plate = {
      assigned: plateAssigned.size,
      unanswered: plateUnanswered.size,
      stored: 0,
      lost: 0,
      doubled: 0,
      unansweredApplied: 0,
      daysOverCapacity: 0,
      days: 0,
    };
    /** One plate day of the member, every page of its items. */
    const plateDay = async (member: Member, date: string) => {
      const items: Array<{ title: string; done: boolean }> = [];
      let day: { capacity: number; active_count: number } | undefined;
      let cursor: string | null = null;
      do {
        const { answer } = await untilAnswered(
          member,
          'GET',
          `/plate?date=${date}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        if (answer.status !== 200) throw new Error(`GET /plate: ${String(answer.status)}`);
        const body = (
          answer as {
            body: {
              data: { capacity: number; active_count: number; items: Array<{ title: string; done: boolean }> };
              meta: { cursor: string | null };
            };
          }
        ).body;
        day ??= body.data;
        items.push(...body.data.items);
        cursor = body.meta.cursor;
      } while (cursor);
      return { capacity: day.capacity, activeCount: day.active_count, items };
    };
    // Overflow goes to the next working day with room (weekends are skipped): read every day from the
    // requested date to a week past the last day a 201 named.
    const lastDay = [...plateAssigned.values()].reduce((max, a) => (a.date > max ? a.date : max), plateDate);
    const plateDays: string[] = [];
    for (let t = Date.parse(plateDate); t <= Date.parse(lastDay) + 7 * 86_400_000; t += 86_400_000) {
      plateDays.push(new Date(t).toISOString().slice(0, 10));
    }
    for (const member of members) {
      const found = new Map<string, string[]>(); // title -> the days it is on
      for (const date of plateDays) {
        const day = await plateDay(member, date);
        if (day.activeCount > day.capacity || day.items.filter((i) => !i.done).length > day.capacity) plate.daysOverCapacity++;
        const ours = day.items.filter((i) => i.title.startsWith(`chaos ${id} `));
        if (ours.length > 0) plate.days++;
        for (const i of ours) found.set(i.title, [...(found.get(i.title) ?? []), date]);
      }
      for (const [title, days] of found) {
        plate.stored += days.length;
        if (days.length > 1) plate.doubled += days.length - 1;
        if (plateUnanswered.get(title) === member.memberId) plate.unansweredApplied++;
      }
      for (const [title, a] of plateAssigned) {
        if (a.assignee === member.memberId && !(found.get(title) ?? []).includes(a.date)) plate.lost++;
      }
    }

    const report: ChaosReport = {
      seed: options.seed,
      replicas: options.replicas,
      members: options.members,
      durationS: Math.round((Date.now() - started) / 1000),
      topics: { count: topicNames.length, replicationFactor, minInsyncReplicas },
      requests: counts.requests,
      answered2xx: counts.ok,
      answered503: counts.unavailable,
      answered429: counts.tooMany,
      answered5xx: counts.server,
      networkErrors: counts.network,
      unexpectedAnswers: counts.unexpectedAnswers,
      faults,
      rollingRestart: {
        restarted: rolling.restarted,
        durationS: rolling.durationS,
        requests: rolling.requests,
        answered5xx: rolling.server,
        answered503: rolling.unavailable,
      },
      events: {
        acknowledged: events.acknowledged,
        stored: events.stored,
        lost: events.lost,
        doubled: events.doubled,
        misLinked: events.misLinked,
        linkedAfterMs,
        healedLate,
        auditReannounced,
      },
      sessions,
      ...(webhooks ? { webhooks } : {}),
      plate,
      lag: { zeroAfterMs, lastTotal, sinceLastFaultS: Math.round((loadEnded - lastFault) / 1000) },
      problems,
    };
    return report;
  } finally {
    await cleanup();
  }
}

/** What makes a run fail: any loss, doubling, mislink, state or capacity violation, 5xx other than 503, or lag. */
export function chaosFailures(r: ChaosReport): string[] {
  const failures: string[] = [];
  const check = (ok: boolean, what: string): void => {
    if (!ok) failures.push(what);
  };
  check(
    r.topics.replicationFactor.length === 1 && r.topics.replicationFactor[0] === 3,
    `replication factor ${r.topics.replicationFactor.join('/')}`,
  );
  check(
    r.topics.minInsyncReplicas.length === 1 && r.topics.minInsyncReplicas[0] === '2',
    `min.insync.replicas ${r.topics.minInsyncReplicas.join('/')}`,
  );
  check(
    r.events.acknowledged > 0 && r.events.lost === 0 && r.events.doubled === 0,
    `events: ${r.events.lost} lost, ${r.events.doubled} doubled`,
  );
  check(r.events.misLinked === 0, `events: ${r.events.misLinked} not linked to their session`);
  check(
    r.sessions.started > 0 && r.sessions.lost === 0 && r.sessions.doubled === 0,
    `sessions: ${r.sessions.lost} lost, ${r.sessions.doubled} doubled`,
  );
  check(r.sessions.wrongState === 0, `sessions: ${r.sessions.wrongState} in another state than answered`);
  if (r.webhooks) {
    check(
      r.webhooks.expected > 0 && r.webhooks.lost === 0 && r.webhooks.doubled === 0,
      `webhooks: ${r.webhooks.lost} session.started lost, ${r.webhooks.doubled} doubled`,
    );
  }
  check(r.plate.assigned > 0 && r.plate.lost === 0 && r.plate.doubled === 0, `plate: ${r.plate.lost} lost, ${r.plate.doubled} doubled`);
  check(r.plate.daysOverCapacity === 0, `plate: ${r.plate.daysOverCapacity} days over capacity`);
  check(r.answered5xx === 0, `${r.answered5xx} answers 5xx other than 503`);
  check(r.unexpectedAnswers === 0, `${r.unexpectedAnswers} unexpected answers`);
  check(r.rollingRestart.answered5xx === 0, `rolling restart: ${r.rollingRestart.answered5xx} 5xx other than 503`);
  check(r.lag.zeroAfterMs >= 0, `consumer lag ${r.lag.lastTotal} 30 s after the load`);
  return failures;
}

export function formatReport(r: ChaosReport): string {
  const replicas = Object.entries(r.replicas)
    .map(([app, n]) => `${app}×${n}`)
    .join(' ');
  return [
    `chaos: seed ${r.seed}, ${r.durationS} s, ${r.members} members, replicas ${replicas}`,
    `  topics: ${r.topics.count}, replication factor ${r.topics.replicationFactor.join('/')}, min.insync.replicas ${r.topics.minInsyncReplicas.join('/')}`,
    `  requests ${r.requests}: 2xx ${r.answered2xx}, 503 ${r.answered503}, 429 ${r.answered429}, other 5xx ${r.answered5xx}, network errors ${r.networkErrors}, unexpected answers ${r.unexpectedAnswers}`,
    `  faults injected: ${r.faults.length}`,
    ...r.faults.map((f) => `    ${f}`),
    `  rolling restart: ${r.rollingRestart.restarted} replicas in ${r.rollingRestart.durationS} s, ${r.rollingRestart.requests} requests, 503 ${r.rollingRestart.answered503}, other 5xx ${r.rollingRestart.answered5xx}`,
    `  events: ${r.events.acknowledged} acknowledged, ${r.events.stored} stored, ${r.events.lost} lost, ${r.events.doubled} doubled, ${r.events.misLinked} mislinked (all linked ${r.events.linkedAfterMs} ms after the load; ${r.events.healedLate} healed late, link audit re-announced ${r.events.auditReannounced})`,
    `  sessions: ${r.sessions.started} started, ${r.sessions.stored} stored, ${r.sessions.lost} lost, ${r.sessions.doubled} doubled, ${r.sessions.wrongState} in the wrong state`,
    ...(r.webhooks
      ? [
          `  webhooks: ${r.webhooks.expected} session.started expected, ${r.webhooks.received} messages, ${r.webhooks.lost} lost, ${r.webhooks.doubled} doubled, ${r.webhooks.redelivered} redelivered (same webhook-id)`,
        ]
      : []),
    `  plate: ${r.plate.assigned} assigned (201), ${r.plate.unanswered} unanswered of which ${r.plate.unansweredApplied} applied, ${r.plate.stored} stored, ${r.plate.lost} lost, ${r.plate.doubled} doubled, ${r.plate.daysOverCapacity} of ${r.plate.days} days over capacity`,
    `  consumer lag 0 ${r.lag.zeroAfterMs} ms after the load ended, ${r.lag.sinceLastFaultS} s after the last fault and the rolling restart began (-1: not within 30 s; last total ${r.lag.lastTotal})`,
    ...r.problems.slice(0, 20).map((p) => `  problem: ${p}`),
  ].join('\n');
}
