/**
 * Benchmark (not a test): the five session endpoints through the running
 * stack at a fixed total rate, with a realistic mix.
 *
 *   npm run bench:sessions [-- --rate 200 --seconds 60 --members 40 --warmup 5] [--no-floor | --floor-only] [--floor-via-http]
 *
 * Uses the gateway at BENCH_URL (default http://127.0.0.1:3000) when it
 * answers; otherwise starts identity, sessions and a gateway from dist/ (run
 * `npm run infra:up` first) and stops them afterwards. Creates `members`
 * members in a few workspaces with identity's bootstrap command
 * (`main.js admin create-member`), each getting rate/members requests a
 * second — 200 req/s over 40 members is 300 a minute each, half the D-5
 * limit. Each member walks its own session like a client would: start a
 * timer (sometimes record a manual block), pause and resume, close, list its
 * sessions, sometimes start the next timer over a live one (D-23).
 *
 * Open loop: request n is due at start + n / rate. A request that cannot
 * leave on time (its member still waits for the previous answer) is timed
 * from when it was due, so queueing shows in the figures instead of
 * slowing the load down. Plain node:http with a keep-alive agent.
 *
 * CPU: the CPU milliseconds each process of the stack spent per
 * command over the measured window (bench/cpu-sampler.ts), and the total.
 * Then the raw ceiling at the same rate (bench/sessions-floor.ts): the same
 * hops made with the design's packages and no other code.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { cpus, hostname } from 'node:os';
import { join } from 'node:path';
import { mainOf, repoRoot, startAppProcess, type AppProcess } from '@worktrack/testing';
import { traceSinkFromArgs } from './trace-sink';
import { CpuSampler, formatCpu, type CpuWindow } from './cpu-sampler';
import { runFloor } from './sessions-floor';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RATE = arg('rate', 200);
const SECONDS = arg('seconds', 60);
const MEMBERS = arg('members', 40);
const WARMUP = arg('warmup', 5);
const WORKSPACES = Math.max(1, Math.ceil(MEMBERS / 10));
const FLOOR = !process.argv.includes('--no-floor');
/** `http`: the ceiling's commands and replies over HTTP instead of Kafka (what those two hops cost). */
const FLOOR_VIA = process.argv.includes('--floor-via-http') ? 'http' : 'kafka';
const STACK = !process.argv.includes('--floor-only');

type Endpoint = 'start' | 'pause' | 'resume' | 'close' | 'list';
const ENDPOINTS: Endpoint[] = ['start', 'pause', 'resume', 'close', 'list'];

interface Member {
  token: string;
  live?: { id: string; state: 'active' | 'paused' };
  busy: boolean;
}

interface Sample {
  endpoint: Endpoint;
  /** When the request was due (performance.now()). */
  due: number;
  ms: number;
  status: number;
  measured: boolean;
}

const base = new URL(process.env.BENCH_URL ?? 'http://127.0.0.1:3000');
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function http(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: base.hostname,
        port: base.port || 80,
        method,
        path,
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          ...(data === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** What a member does next, given its live session: roughly a third starts/closes, a third pauses/resumes, a fifth lists. */
function nextAction(m: Member): { endpoint: Endpoint; method: string; path: string; body?: unknown } {
  const r = Math.random();
  const intent = { intent_text: `bench ${randomUUID().slice(0, 8)}` };
  const list = (): { endpoint: Endpoint; method: string; path: string } => ({
    endpoint: 'list',
    method: 'GET',
    path: r < 0.1 ? '/v1/sessions?state=closed&limit=20' : '/v1/sessions?limit=20',
  });
  const start = (): { endpoint: Endpoint; method: string; path: string; body: unknown } => {
    if (Math.random() < 0.2) {
      const end = Date.now() - Math.floor(Math.random() * 3_600_000);
      return {
        endpoint: 'start',
        method: 'POST',
        path: '/v1/sessions',
        body: { ...intent, source: 'manual', started_at: new Date(end - 1_800_000).toISOString(), ended_at: new Date(end).toISOString() },
      };
    }
    return { endpoint: 'start', method: 'POST', path: '/v1/sessions', body: { ...intent, source: 'timer', idempotency_key: randomUUID() } };
  };
  if (!m.live) return r < 0.75 ? start() : list();
  const at = `/v1/sessions/${m.live.id}`;
  if (m.live.state === 'active') {
    if (r < 0.4) return { endpoint: 'pause', method: 'POST', path: `${at}/pause`, body: { pause_reason: 'bench' } };
    if (r < 0.65) return { endpoint: 'close', method: 'POST', path: `${at}/close`, body: { closing_note: 'done' } };
    if (r < 0.85) return list();
    return start(); // a new timer over the live one (D-23)
  }
  if (r < 0.6) return { endpoint: 'resume', method: 'POST', path: `${at}/resume` };
  if (r < 0.8) return { endpoint: 'close', method: 'POST', path: `${at}/close` };
  return list();
}

function follow(m: Member, endpoint: Endpoint, status: number, text: string): void {
  if (status >= 300) return;
  if (endpoint === 'list') return;
  const s = (JSON.parse(text) as { data: { session_id: string; state: 'active' | 'paused' | 'closed' } }).data;
  m.live = s.state === 'closed' ? (endpoint === 'start' ? m.live : undefined) : { id: s.session_id, state: s.state };
}

function createMember(workspace: string, email: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [mainOf('identity'), 'admin', 'create-member', '--workspace', workspace, '--email', email],
      { cwd: repoRoot(), env: { ...process.env, LOG_LEVEL: 'error' }, timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`create-member failed: ${err.message}\n${stderr}`));
        else resolve((JSON.parse(stdout.trim()) as { token: string }).token);
      },
    );
  });
}

async function ensureStack(): Promise<AppProcess[]> {
  const up = await fetch(new URL('/readyz', base)).then(
    (r) => r.ok,
    () => false,
  );
  if (up) return [];
  await traceSinkFromArgs();
  console.log(`no stack at ${base.origin}: creating topics, starting identity, sessions and a gateway from dist/`);
  const topics = spawnSync(process.execPath, [join(repoRoot(), 'dist/scripts/create-topics.js')], { stdio: 'inherit' });
  if (topics.status !== 0) throw new Error('topic creation failed');
  const started: AppProcess[] = [];
  try {
    for (const app of ['identity', 'sessions'] as const) started.push(await startAppProcess(app, { LOG_LEVEL: 'warn' }));
    started.push(await startAppProcess('gateway', { LOG_LEVEL: 'warn', HTTP_PORT: base.port || '3000' }));
    return started;
  } catch (err) {
    await Promise.all(started.map((p) => p.stop()));
    throw err;
  }
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

function report(samples: Sample[], wallSeconds: number, cpu: CpuWindow): void {
  const measured = samples.filter((s) => s.measured);
  const row = (label: string, group: Sample[]): string => {
    const ms = group.map((s) => s.ms).sort((a, b) => a - b);
    const errors = group.filter((s) => s.status >= 400 || s.status === 0);
    const f = (n: number): string => n.toFixed(1).padStart(6);
    return `  ${label.padEnd(8)} n=${String(group.length).padStart(6)}  ${(group.length / wallSeconds).toFixed(1).padStart(6)} req/s  p50 ${f(percentile(ms, 50))} ms  p95 ${f(percentile(ms, 95))} ms  p99 ${f(percentile(ms, 99))} ms  max ${f(ms[ms.length - 1] ?? NaN)} ms  errors ${errors.length}`;
  };
  console.log(
    `\nbench:sessions (${hostname()}, ${cpus().length} cores, node ${process.version}): target ${RATE} req/s for ${SECONDS} s after ${WARMUP} s warm-up, ${MEMBERS} members in ${WORKSPACES} workspaces, via ${base.origin}`,
  );
  for (const endpoint of ENDPOINTS)
    console.log(
      row(
        endpoint,
        measured.filter((s) => s.endpoint === endpoint),
      ),
    );
  console.log(row('all', measured));
  const statuses = new Map<number, number>();
  for (const s of measured.filter((x) => x.status >= 300 || x.status === 0)) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
  if (statuses.size > 0) console.log(`  non-2xx by status: ${[...statuses].map(([status, n]) => `${status}×${n}`).join(', ')}`);
  const p99 = percentile(
    measured.map((s) => s.ms).sort((a, b) => a - b),
    99,
  );
  // Stalls show as windows (another process on the machine, a broker pause) rather than as a spread.
  const first = measured[0]?.due ?? 0;
  const windows: number[][] = [];
  for (const s of measured) (windows[Math.floor((s.due - first) / 5_000)] ??= []).push(s.ms);
  console.log(
    `  p99 per 5 s window (ms): ${windows
      .map((w) =>
        percentile(
          [...w].sort((a, b) => a - b),
          99,
        ).toFixed(0),
      )
      .join(' ')}`,
  );
  const ok = p99 <= 50 && statuses.size === 0;
  console.log(`  target p99 <= 50 ms at ${RATE} req/s, no errors: ${ok ? 'met' : 'NOT met'} (p99 ${p99.toFixed(1)} ms)`);
  console.log(`  cpu over the ${cpu.seconds.toFixed(1)} s measured:`);
  for (const line of formatCpu(cpu, measured.length, 'command')) console.log(line);
  const errors = measured.filter((s) => s.status >= 500 || s.status === 0).length;
  console.log(
    `cpu_ms_per_unit=${(cpu.totalMs / Math.max(measured.length, 1)).toFixed(2)} unit="command" rate_per_s=${(measured.length / wallSeconds).toFixed(0)} p99_ms=${p99.toFixed(0)} errors=${errors}`,
  );
}

async function floor(): Promise<void> {
  const f = await runFloor(RATE, SECONDS, FLOOR_VIA);
  console.log(
    `\nceiling (bench/sessions-floor.ts: the same hops with kafkajs, pg, ioredis, node:http and the platform's producer alone${FLOOR_VIA === 'http' ? '; commands and replies over HTTP' : ''}): ${(f.commands / f.seconds).toFixed(0)} commands/s, p99 ${f.p99.toFixed(1)} ms, errors ${f.errors}`,
  );
  for (const line of f.cpuLines) console.log(line);
  console.log(`ceiling_cpu_ms_per_unit=${f.cpuMsPerCommand.toFixed(2)} unit="command"`);
}

async function main(): Promise<void> {
  if (STACK) await stack();
  if (FLOOR) await floor();
}

async function stack(): Promise<void> {
  const started = await ensureStack();
  try {
    const run = randomUUID().slice(0, 6);
    console.log(`creating ${MEMBERS} members with the bootstrap command…`);
    const members: Member[] = [];
    for (let i = 0; i < MEMBERS; i += 8) {
      const batch = Array.from({ length: Math.min(8, MEMBERS - i) }, (_, j) =>
        createMember(`bench-sessions-${run}-${(i + j) % WORKSPACES}`, `bench-${i + j}-${run}@example.com`),
      );
      for (const token of await Promise.all(batch)) members.push({ token, busy: false });
    }

    const samples: Sample[] = [];
    const total = Math.round(RATE * (WARMUP + SECONDS));
    const warmupRequests = Math.round(RATE * WARMUP);
    const intervalMs = 1000 / RATE;
    const queues = members.map(() => [] as number[]); // due times waiting per member
    const t0 = performance.now() + 100;
    let measuredFrom = 0;
    let measuredTo = 0;
    const sampler = new CpuSampler(
      new Map(started.map((p) => [p.child.pid ?? -1, p.app])),
      process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/worktrack',
    );
    let cpuWindow: Awaited<ReturnType<CpuSampler['start']>> | undefined;

    const drain = async (index: number): Promise<void> => {
      const m = members[index];
      if (m.busy) return;
      m.busy = true;
      for (let due = queues[index].shift(); due !== undefined; due = queues[index].shift()) {
        const seq = Math.round((due - t0) / intervalMs);
        const action = nextAction(m);
        let status = 0;
        try {
          const res = await http(action.method, action.path, m.token, action.body);
          status = res.status;
          follow(m, action.endpoint, res.status, res.text);
        } catch {
          status = 0;
        }
        const end = performance.now();
        samples.push({ endpoint: action.endpoint, due, ms: end - due, status, measured: seq >= warmupRequests });
        if (seq >= warmupRequests) measuredTo = end;
      }
      m.busy = false;
    };

    for (let n = 0; n < total; n++) {
      const due = t0 + n * intervalMs;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      if (n === warmupRequests) {
        measuredFrom = due;
        cpuWindow = await sampler.start();
      }
      const index = n % members.length;
      queues[index].push(due);
      void drain(index); // a no-op while that member's previous request is out: it is sent when that one is answered
    }
    while (members.some((m) => m.busy)) await new Promise((r) => setTimeout(r, 10));
    const cpu = await (cpuWindow ?? (await sampler.start())).end();
    report(samples, (measuredTo - measuredFrom) / 1000, cpu);
  } finally {
    agent.destroy();
    await Promise.all(started.map((p) => p.stop()));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
