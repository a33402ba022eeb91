/**
 * Benchmark (not a test): outbound webhooks under session load (D-55).
 *
 *   npm run bench:webhooks [-- --rate 200 --seconds 20 --endpoints 20 --members 400 --rounds 2 --hang-ms 0]
 *
 * Starts sessions and webhooks from dist/ on free ports, with a topic prefix
 * and a database of its own (dropped afterwards), and `--endpoints` real HTTP
 * receivers in this process (keep-alive), one of which hangs: it never
 * answers (`--hang-ms 0`, each attempt waits for the service's 15 s timeout)
 * or answers after `--hang-ms`. Every endpoint belongs to a workspace of its
 * own and names every session type. `--members` members walk their
 * sessions (start, pause, resume, close) through `sessions.commands`, half
 * of them in the endpoints' workspaces ("hooked": every command is a session
 * change that becomes one message for one endpoint), half in workspaces
 * without any endpoint ("plain").
 *
 * Load: an open loop at `--rate` commands/s: command n is due at
 * start + n / rate whatever the answers do, and goes to the next member of
 * the phase's half that is not waiting for an answer (a member's commands
 * are sequential, as its session's rules need); a due command finding every
 * member busy is counted as skipped. The achieved rate is what was sent over
 * the phase's wall time.
 *
 * Phases of `--seconds` each, after a warm-up:
 * - `none`: plain members, the webhooks service not running yet (the
 *   session commands alone);
 * - then the webhooks service starts and the endpoints are registered, and
 *   `--rounds` rounds alternate (plain, hooked; hooked, plain; …): `plain`
 *   is the session load with the service running but no endpoint in the
 *   members' workspaces, `hooked` the same load delivered to the endpoints.
 *
 * Figures per phase: the achieved rate, the commands' answer p50/p99, and
 * CPU milliseconds per session command per process (bench/cpu-sampler.ts:
 * sessions, webhooks, Postgres — with the bench database's backends — the
 * broker, Redis). For the hooked phases, the delivery latency: from the
 * moment the bench got the command's answer to the moment the matching
 * message (same session, same type) arrived at its receiver, p50/p95/p99/max
 * over the answering endpoints, and how many of their messages arrived
 * (within `--drain` seconds after the phase). Last, the raw ceiling: the
 * same bodies POSTed by this process straight to the answering receivers
 * over keep-alive connections, CPU per POST of this process.
 */
import { randomUUID } from 'node:crypto';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, hostname, loadavg } from 'node:os';
import { Client } from 'pg';
import {
  allTopics,
  CloseSession,
  CreateWebhookEndpoint,
  PauseSession,
  ResumeSession,
  StartSession,
  WEBHOOK_EVENT_TYPES,
  type ActorV1,
} from '@worktrack/contracts';
import { CommandClient, ensureTopics } from '@worktrack/platform';
import { startAppProcess, testKafka, type AppProcess } from '@worktrack/testing';
import { CpuSampler, formatCpu, type CpuWindow } from './cpu-sampler';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RATE = arg('rate', 200);
const SECONDS = arg('seconds', 20);
const ENDPOINTS = arg('endpoints', 20);
const MEMBERS = arg('members', 400);
const ROUNDS = arg('rounds', 2);
const WARMUP = arg('warmup', 5);
const DRAIN = arg('drain', 5);
/** 0: the hanging endpoint never answers; otherwise it answers after this many ms. */
const HANG_MS = arg('hang-ms', 0);
const STARTUP_MS = 120_000;
const RUN = randomUUID().slice(0, 8);
const ADMIN_DB = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = `bench_hooks_${RUN}`;
const DATABASE_URL = ADMIN_DB.replace(/\/[^/]*$/, `/${DB_NAME}`);
const PREFIX = `bench-hooks-${RUN}.`;
const ENV = { KAFKA_TOPIC_PREFIX: PREFIX, DATABASE_URL, LOG_LEVEL: 'warn' };

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

interface Receiver {
  server: Server;
  url: string;
  hangs: boolean;
}

interface Member {
  actor: ActorV1;
  /** The receiver its workspace's endpoint posts to (hooked members), else -1. */
  receiver: number;
  live?: { id: string; state: 'active' | 'paused' };
  busy: boolean;
}

interface PhaseResult {
  name: string;
  sent: number;
  answered: number;
  skipped: number;
  failed: number;
  rate: number;
  answerP50: number;
  answerP99: number;
  cpu: CpuWindow;
}

function makeMember(workspaceId: string, receiver: number): Member {
  const memberId = randomUUID();
  return {
    busy: false,
    receiver,
    actor: {
      memberId,
      workspaceId,
      scope: 'full',
      credential: 'api_token',
      profile: {
        memberId,
        workspaceId,
        role: 'owner',
        timezone: 'UTC',
        workingHours: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] },
        plateCapacity: 6,
        version: 1,
      },
    },
  };
}

async function main(): Promise<void> {
  console.log(
    `bench:webhooks ${hostname()}, ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, node ${process.version}`,
  );
  console.log(
    `  ${RATE} session commands/s, ${SECONDS} s a phase, ${ROUNDS} rounds, ${MEMBERS} members (half hooked), ${ENDPOINTS} endpoints (1 ${HANG_MS > 0 ? `answers after ${HANG_MS} ms` : 'never answers'})`,
  );
  const admin = new Client({ connectionString: ADMIN_DB });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${DB_NAME}"`);
  const kafka = testKafka('bench-webhooks', ENV);
  await ensureTopics(await kafka.client.admin(), allTopics(), PREFIX);
  const apps: AppProcess[] = [];
  const receivers: Receiver[] = [];
  let hungRequests = 0;
  /** Keys `<session>:<type>` → the times the bench got the answers (in order) / the messages arrived (in order). */
  const answers = new Map<string, number[]>();
  const arrivals = new Map<string, number[]>();
  /** The same, as the service's clock sees it: arrival minus the change's `timestamp`. */
  const sinceChange: number[] = [];
  let recording = false;
  const rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 30_000 });
  try {
    for (let i = 0; i < ENDPOINTS; i++) {
      const hangs = i === 0;
      const server = createServer((req, res) => {
        if (hangs) {
          hungRequests++;
          req.resume();
          if (HANG_MS > 0) setTimeout(() => res.writeHead(204).end(), HANG_MS);
          return; // otherwise never answers: the attempt times out
        }
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const at = Date.now();
          res.writeHead(204).end();
          if (!recording) return;
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            type: string;
            timestamp: string;
            data: { session_id: string };
          };
          const key = `${body.data.session_id}:${body.type}`;
          arrivals.set(key, [...(arrivals.get(key) ?? []), at]);
          sinceChange.push(at - Date.parse(body.timestamp));
        });
      });
      server.keepAliveTimeout = 60_000;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      receivers.push({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, hangs });
    }
    const sessions = await startAppProcess('sessions', ENV, STARTUP_MS);
    apps.push(sessions);
    await rpc.start();

    // Hooked members: in the endpoints' workspaces, round robin; plain members: as many workspaces, none with an endpoint.
    const hookedWorkspaces = receivers.map(() => randomUUID());
    const plainWorkspaces = receivers.map(() => randomUUID());
    const half = Math.max(1, Math.floor(MEMBERS / 2));
    const hooked = Array.from({ length: half }, (_, i) => makeMember(hookedWorkspaces[i % ENDPOINTS], i % ENDPOINTS));
    const plain = Array.from({ length: half }, (_, i) => makeMember(plainWorkspaces[i % ENDPOINTS], -1));

    const record = (m: Member, sessionId: string, type: string): void => {
      if (!recording || m.receiver < 0 || receivers[m.receiver].hangs) return;
      const key = `${sessionId}:${type}`;
      answers.set(key, [...(answers.get(key) ?? []), Date.now()]);
    };
    /** One member's next step of its session walk: start, pause, resume, close. */
    const step = async (m: Member): Promise<void> => {
      const key = { key: m.actor.memberId };
      if (!m.live) {
        const s = await rpc.send(
          StartSession,
          { actor: m.actor, requestedAt: new Date().toISOString(), intentText: 'bench', source: 'timer' },
          key,
        );
        m.live = { id: s.sessionId, state: 'active' };
        record(m, s.sessionId, 'session.started');
      } else if (m.live.state === 'active' && Math.random() < 0.5) {
        await rpc.send(PauseSession, { actor: m.actor, sessionId: m.live.id }, key);
        m.live.state = 'paused';
        record(m, m.live.id, 'session.paused');
      } else if (m.live.state === 'paused') {
        await rpc.send(ResumeSession, { actor: m.actor, sessionId: m.live.id }, key);
        m.live.state = 'active';
        record(m, m.live.id, 'session.resumed');
      } else {
        const id = m.live.id;
        await rpc.send(CloseSession, { actor: m.actor, sessionId: id }, key);
        m.live = undefined;
        record(m, id, 'session.closed');
      }
    };

    const pids = new Map<number, string>([[sessions.child.pid ?? -1, 'sessions']]);
    const sampler = new CpuSampler(pids, DATABASE_URL);
    /** Open loop at RATE for `seconds` over `members`: command n is due at start + n / RATE, given to the next member not waiting for an answer. */
    const load = async (name: string, members: Member[], seconds: number): Promise<PhaseResult> => {
      const cpuWindow = await sampler.start();
      const total = Math.round(RATE * seconds);
      const started = Date.now();
      let sent = 0;
      let skipped = 0;
      let failed = 0;
      let next = 0;
      const latencies: number[] = [];
      const inFlight: Array<Promise<void>> = [];
      for (let n = 0; n < total; n++) {
        const due = started + (n * 1000) / RATE;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        let m: Member | undefined;
        for (let tries = 0; tries < members.length && !m; tries++) {
          const candidate = members[next];
          next = (next + 1) % members.length;
          if (!candidate.busy) m = candidate;
        }
        if (!m) {
          skipped++;
          continue;
        }
        const member = m;
        member.busy = true;
        sent++;
        const t0 = Date.now();
        inFlight.push(
          step(member)
            .then(() => {
              latencies.push(Date.now() - t0);
            })
            .catch(() => {
              failed++;
              member.live = undefined;
            })
            .finally(() => {
              member.busy = false;
            }),
        );
      }
      const elapsed = (Date.now() - started) / 1000;
      await Promise.all(inFlight);
      const cpu = await cpuWindow.end();
      latencies.sort((a, b) => a - b);
      return {
        name,
        sent,
        answered: latencies.length,
        skipped,
        failed,
        rate: sent / elapsed,
        answerP50: percentile(latencies, 50),
        answerP99: percentile(latencies, 99),
        cpu,
      };
    };
    const print = (p: PhaseResult): void => {
      console.log(
        `\n  ${p.name}: ${p.sent} commands at ${p.rate.toFixed(1)}/s achieved (${p.skipped} skipped: every member busy; ${p.failed} failed), answer p50 ${p.answerP50} ms p99 ${p.answerP99} ms, load ${loadavg()[0].toFixed(2)}`,
      );
      for (const line of formatCpu(p.cpu, p.answered, 'command')) console.log(`  ${line}`);
    };
    const results: PhaseResult[] = [];

    await load('warm-up', plain, WARMUP);
    const none = await load('none (no webhooks service)', plain, SECONDS);
    print(none);
    results.push(none);

    const webhooks = await startAppProcess('webhooks', { ...ENV, FEED_ALLOW_PRIVATE_HOSTS: 'true' }, STARTUP_MS);
    apps.push(webhooks);
    pids.set(webhooks.child.pid ?? -1, 'webhooks');
    for (let i = 0; i < receivers.length; i++) {
      const owner = hooked[i].actor;
      await rpc.send(
        CreateWebhookEndpoint,
        { actor: owner, url: receivers[i].url, eventTypes: [...WEBHOOK_EVENT_TYPES] },
        { key: owner.memberId },
      );
    }
    await load('warm-up', hooked, WARMUP);
    await new Promise((r) => setTimeout(r, 1_000));

    const delivered: number[] = [];
    let expected = 0;
    let arrived = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['plain', 'hooked'] as const) : (['hooked', 'plain'] as const);
      for (const kind of order) {
        if (kind === 'plain') {
          const p = await load(`plain (round ${round + 1}: service running, no endpoint)`, plain, SECONDS);
          print(p);
          results.push(p);
          continue;
        }
        answers.clear();
        arrivals.clear();
        recording = true;
        const p = await load(`hooked (round ${round + 1}: 19 answering endpoints and 1 hanging)`, hooked, SECONDS);
        await new Promise((r) => setTimeout(r, DRAIN * 1000)); // the last deliveries
        recording = false;
        print(p);
        results.push(p);
        const here: number[] = [];
        for (const [key, times] of answers) {
          expected += times.length;
          const got = arrivals.get(key) ?? [];
          arrived += Math.min(got.length, times.length);
          for (let i = 0; i < Math.min(got.length, times.length); i++) here.push(got[i] - times[i]);
        }
        here.sort((a, b) => a - b);
        delivered.push(...here);
        console.log(
          `  delivered ${here.length} of ${[...answers.values()].reduce((a, t) => a + t.length, 0)} answered changes to the answering endpoints within ${DRAIN} s; answer → arrival p50 ${percentile(here, 50)} ms, p95 ${percentile(here, 95)} ms, p99 ${percentile(here, 99)} ms, max ${here[here.length - 1]} ms`,
        );
      }
    }

    // The raw ceiling: this process POSTs the same kind of body straight to the answering receivers.
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const healthy = receivers.filter((r) => !r.hangs);
    const body = JSON.stringify({
      type: 'session.paused',
      timestamp: new Date().toISOString(),
      data: { session_id: randomUUID(), state: 'paused', source: 'timer', member_id: randomUUID(), workspace_id: randomUUID() },
    });
    const post = (url: string): Promise<void> =>
      new Promise((resolve, reject) => {
        const req = request(
          url,
          { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const c0 = process.cpuUsage();
    const t0 = Date.now();
    let posts = 0;
    await Promise.all(
      healthy.map(async (r) => {
        while (Date.now() - t0 < 5_000) {
          await post(r.url);
          posts++;
        }
      }),
    );
    const c1 = process.cpuUsage(c0);
    agent.destroy();

    const hookedRuns = results.filter((r) => r.name.startsWith('hooked'));
    const plainRuns = results.filter((r) => r.name.startsWith('plain'));
    const perCommand = (rs: PhaseResult[], pick: (w: CpuWindow) => number): number =>
      rs.reduce((a, r) => a + pick(r.cpu), 0) /
      Math.max(
        1,
        rs.reduce((a, r) => a + r.answered, 0),
      );
    const groups = [...new Set(results.flatMap((r) => Object.keys(r.cpu.byGroup)))].sort();
    console.log('\nsummary (CPU ms per session command, summed over the phases of each kind):');
    const kinds: Array<[string, PhaseResult[]]> = [
      ['none', [none]],
      ['plain', plainRuns],
      ['hooked', hookedRuns],
    ];
    for (const [name, rs] of kinds) {
      const seconds = rs.reduce((a: number, r) => a + (r.rate > 0 ? r.sent / r.rate : 0), 0);
      console.log(
        `  ${name.padEnd(7)} ${(rs.reduce((a: number, r) => a + r.sent, 0) / Math.max(seconds, 1e-9)).toFixed(1)}/s  ${groups.map((g) => `${g} ${perCommand(rs, (w) => w.byGroup[g] ?? 0).toFixed(3)}`).join('  ')}  (bench db ${perCommand(rs, (w) => w.databaseBackendsMs ?? 0).toFixed(3)})  TOTAL ${perCommand(rs, (w) => w.totalMs).toFixed(3)}`,
      );
    }
    const sessionsCpu = (rs: PhaseResult[]): number => perCommand(rs, (w) => w.byGroup.sessions ?? 0);
    const own = (rs: PhaseResult[]): number =>
      perCommand(rs, (w) => (w.byGroup.sessions ?? 0) + (w.byGroup.webhooks ?? 0) + (w.databaseBackendsMs ?? 0));
    console.log(
      `  sessions process per command: hooked vs plain ${(((sessionsCpu(hookedRuns) - sessionsCpu(plainRuns)) / sessionsCpu(plainRuns)) * 100).toFixed(1)} %, hooked vs none ${(((sessionsCpu(hookedRuns) - sessionsCpu([none])) / sessionsCpu([none])) * 100).toFixed(1)} % (budget +10 %)`,
    );
    console.log(
      `  sessions + webhooks + bench db per command: plain ${own(plainRuns).toFixed(3)}, hooked ${own(hookedRuns).toFixed(3)} (the delivery's own cost: ${(own(hookedRuns) - own(plainRuns)).toFixed(3)} ms per message)`,
    );
    delivered.sort((a, b) => a - b);
    sinceChange.sort((a, b) => a - b);
    console.log(
      `  delivery (answer → arrival, ${ENDPOINTS - 1} answering endpoints, every hooked round): ${arrived} of ${expected} arrived; p50 ${percentile(delivered, 50)} ms, p95 ${percentile(delivered, 95)} ms, p99 ${percentile(delivered, 99)} ms, max ${delivered[delivered.length - 1]} ms (budget: p99 2000 ms); change timestamp → arrival p99 ${percentile(sinceChange, 99)} ms`,
    );
    console.log(`  the hanging endpoint received ${hungRequests} requests (its concurrency at a time, then its circuit opens)`);
    console.log(
      `  raw ceiling: ${posts} POSTs in 5 s (${(posts / 5).toFixed(0)}/s) from one process to the ${healthy.length} answering receivers over keep-alive, ${((c1.user + c1.system) / 1000 / posts).toFixed(3)} CPU ms per POST (sender and receivers: this process)`,
    );
  } finally {
    await rpc.stop().catch(() => undefined);
    await kafka.close().catch(() => undefined);
    await Promise.all(apps.map((a) => a.stop()));
    for (const r of receivers) {
      r.server.closeAllConnections();
      r.server.close();
    }
    await admin.query(`DROP DATABASE IF EXISTS "${DB_NAME}" WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
