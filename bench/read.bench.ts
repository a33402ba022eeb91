/**
 * Benchmark (not a test): the read pages — the activity timeline
 * (GET /v1/activity/events) and the session list (GET /v1/sessions) — at a
 * fixed total rate, with the CPU each process of the stack spends per page.
 *
 *   npm run bench:read [-- --rate 300 --seconds 30 --members 40 --warmup 5]
 *
 * Uses the gateway at BENCH_URL (default http://127.0.0.1:3000) when it
 * answers; otherwise starts identity, ingestion, sessions and a gateway from
 * dist/ on free ports (BENCH_URL's port for the gateway; run `npm run
 * infra:up` first) and stops them afterwards. Each member first gets 300
 * events (three batches of 100) and five closed sessions, so every page is
 * full. Then, open loop at `rate` requests a second spread over the members
 * (300/s over 40 members is 450 a minute each, under the D-5 limit): three
 * timeline pages of 50 (one in three is the second page, through the cursor)
 * for every two session pages of 20. Figures: throughput, latency
 * percentiles, errors, and the CPU milliseconds per page of the gateway, each
 * service, postgres, the broker and redis (bench/cpu-sampler.ts). The raw
 * ceiling beside them: the same timeline query straight from one process.
 */
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { cpus, hostname } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { Client } from 'pg';
import { memberWithToken, repoRoot, startAppProcess, type AppProcess } from '@worktrack/testing';
import { CpuSampler, formatCpu } from './cpu-sampler';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RATE = arg('rate', 300);
const SECONDS = arg('seconds', 30);
const MEMBERS = arg('members', 40);
const WARMUP = arg('warmup', 5);
const base = new URL(process.env.BENCH_URL ?? 'http://127.0.0.1:3000');
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/worktrack';
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function http(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: base.hostname,
        port: base.port || 80,
        method,
        path,
        agent,
        timeout: 30_000,
        headers: {
          authorization: `Bearer ${token}`,
          ...(data === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => resolve({ status: 0, text: '' }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, text: '' }));
    req.end(data);
  });
}

async function ensureStack(): Promise<AppProcess[]> {
  const up = await fetch(new URL('/readyz', base)).then(
    (r) => r.ok,
    () => false,
  );
  if (up) return [];
  console.log(`no stack at ${base.origin}: creating topics, starting identity, ingestion, sessions and a gateway from dist/`);
  const topics = spawnSync(process.execPath, [join(repoRoot(), 'dist/scripts/create-topics.js')], { stdio: 'inherit' });
  if (topics.status !== 0) throw new Error('topic creation failed');
  const started: AppProcess[] = [];
  try {
    for (const app of ['identity', 'ingestion', 'sessions'] as const) started.push(await startAppProcess(app, { LOG_LEVEL: 'warn' }));
    started.push(await startAppProcess('gateway', { LOG_LEVEL: 'warn', HTTP_PORT: base.port || '3000' }));
    return started;
  } catch (err) {
    await Promise.all(started.map((p) => p.stop()));
    throw err;
  }
}

async function seed(token: string): Promise<void> {
  for (let b = 0; b < 3; b++) {
    const now = Date.now();
    const events = Array.from({ length: 100 }, (_, i) => ({
      source_type: 'bench',
      event_type: i % 3 === 0 ? 'test.run' : 'tool.call',
      occurred_at: new Date(now - b * 100_000 - i * 1000).toISOString(),
      external_id: `r${b}-${i}-${randomUUID().slice(0, 8)}`,
      payload: { tool: 'pytest', duration_ms: 1234 + i, ok: i % 7 !== 0, host: 'runner-12' },
    }));
    const res = await http('POST', '/v1/activity/events', token, { events });
    if (res.status !== 202) throw new Error(`seeding events answered ${res.status}: ${res.text}`);
  }
  for (let s = 0; s < 5; s++) {
    const end = Date.now() - (s + 1) * 3_600_000;
    const res = await http('POST', '/v1/sessions', token, {
      intent_text: `read bench ${s}`,
      source: 'manual',
      started_at: new Date(end - 1_800_000).toISOString(),
      ended_at: new Date(end).toISOString(),
    });
    if (res.status !== 201) throw new Error(`seeding sessions answered ${res.status}: ${res.text}`);
  }
}

/** The ceiling: the first timeline page's query, from one process, as fast as it goes. */
async function ceiling(members: Array<{ memberId: string; workspaceId: string }>, seconds: number): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const end = performance.now() + seconds * 1000;
    let n = 0;
    while (performance.now() < end) {
      await client.query(
        `SELECT id, source_type, event_type, occurred_at, received_at, payload, external_id, session_id
           FROM ingestion.activity_events WHERE member_id = $1 AND workspace_id = $2
          ORDER BY occurred_at DESC, id DESC LIMIT 51`,
        [members[n % members.length].memberId, members[n % members.length].workspaceId],
      );
      n++;
    }
    return n / seconds;
  } finally {
    await client.end();
  }
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function main(): Promise<void> {
  const started = await ensureStack();
  try {
    const run = randomUUID().slice(0, 6);
    console.log(`creating and seeding ${MEMBERS} members…`);
    const members = Array.from({ length: MEMBERS }, (_, i) =>
      memberWithToken({ workspace: `bench-read-${run}-${i % 4}`, email: `bench-read-${i}-${run}@example.com` }),
    );
    for (let i = 0; i < members.length; i += 8) await Promise.all(members.slice(i, i + 8).map((m) => seed(m.token)));
    const cursors = new Map<string, string>();
    const samples: Array<{ page: 'timeline' | 'sessions'; ms: number; status: number; measured: boolean }> = [];
    const total = Math.round(RATE * (WARMUP + SECONDS));
    const warmup = Math.round(RATE * WARMUP);
    const interval = 1000 / RATE;
    const sampler = new CpuSampler(new Map(started.map((p) => [p.child.pid ?? -1, p.app])), databaseUrl);
    let window: Awaited<ReturnType<CpuSampler['start']>> | undefined;
    const pending: Array<Promise<void>> = [];
    const t0 = performance.now() + 100;
    let measuredFrom = 0;
    let measuredTo = 0;
    for (let n = 0; n < total; n++) {
      const due = t0 + n * interval;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      if (n === warmup) {
        window = await sampler.start();
        measuredFrom = performance.now();
      }
      const m = members[n % members.length];
      const kind = n % 5 < 3 ? 'timeline' : 'sessions';
      const cursor = cursors.get(m.memberId);
      const path =
        kind === 'sessions'
          ? '/v1/sessions?limit=20'
          : cursor && n % 3 === 0
            ? `/v1/activity/events?limit=50&cursor=${encodeURIComponent(cursor)}`
            : '/v1/activity/events?limit=50';
      const measured = n >= warmup;
      pending.push(
        http('GET', path, m.token).then((res) => {
          const end = performance.now();
          samples.push({ page: kind, ms: end - due, status: res.status, measured });
          if (measured) measuredTo = end;
          if (kind === 'timeline' && res.status === 200) {
            const next = (JSON.parse(res.text) as { meta: { cursor: string | null } }).meta.cursor;
            if (next && !path.includes('cursor=')) cursors.set(m.memberId, next);
          }
        }),
      );
    }
    await Promise.all(pending);
    const cpu = await (window ?? (await sampler.start())).end();
    const wall = (measuredTo - measuredFrom) / 1000;
    const measured = samples.filter((s) => s.measured);
    const row = (label: string, group: typeof measured): string => {
      const ms = group.map((s) => s.ms).sort((a, b) => a - b);
      const errors = group.filter((s) => s.status !== 200).length;
      return `  ${label.padEnd(9)} n=${String(group.length).padStart(6)}  ${(group.length / wall).toFixed(1).padStart(6)} req/s  p50 ${percentile(ms, 50).toFixed(1)} ms  p99 ${percentile(ms, 99).toFixed(1)} ms  max ${(ms[ms.length - 1] ?? NaN).toFixed(1)} ms  errors ${errors}`;
    };
    const rows = await ceiling(members, 3);
    console.log(
      `\nbench:read (${hostname()}, ${cpus().length} cores, node ${process.version}): target ${RATE} req/s for ${SECONDS} s after ${WARMUP} s warm-up, ${MEMBERS} members, via ${base.origin}`,
    );
    console.log(
      row(
        'timeline',
        measured.filter((s) => s.page === 'timeline'),
      ),
    );
    console.log(
      row(
        'sessions',
        measured.filter((s) => s.page === 'sessions'),
      ),
    );
    console.log(row('all', measured));
    console.log(`  ceiling   ${rows.toFixed(0)} timeline queries/s (one process, the first page's query straight on Postgres)`);
    console.log(`  cpu over the ${cpu.seconds.toFixed(1)} s measured:`);
    for (const line of formatCpu(cpu, measured.length, 'page')) console.log(line);
    const all = measured.map((s) => s.ms).sort((a, b) => a - b);
    const errors = measured.filter((s) => s.status !== 200).length;
    console.log(
      `cpu_ms_per_unit=${(cpu.totalMs / Math.max(measured.length, 1)).toFixed(2)} unit="page" rate_per_s=${(measured.length / wall).toFixed(0)} p99_ms=${percentile(all, 99).toFixed(0)} errors=${errors}`,
    );
  } finally {
    agent.destroy();
    await Promise.all(started.map((p) => p.stop()));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
