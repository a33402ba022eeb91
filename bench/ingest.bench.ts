/**
 * Benchmark (not a test): POST /v1/activity/events at volume, and the
 * machine's ceiling for the same rows.
 *
 *   npm run bench:ingest [-- --seconds 20 --connections 16 --members 30]
 *
 * Uses the running stack at BENCH_URL (default http://127.0.0.1:3000, apps on
 * their default ports) when it answers; otherwise starts identity, ingestion,
 * sessions, correlation and a gateway from dist/ (run `npm run infra:up`
 * first) and stops them afterwards. Creates members with the bootstrap
 * command (enough to stay under 600 requests/minute each) and starts a timer
 * session for each, so every event gets linked. Drives batches of 100 events
 * from concurrent connections with autocannon for a fixed time (the load
 * bench/ingest-load.ts spells, which bench:web runs too). Then:
 * correlation — the link delay p99 (event stored → link visible, from
 * ingestion's histogram) and how long after the load the consumer lag and the
 * unlinked backlog take to reach zero; and the ceiling — the same number of
 * rows inserted straight into Postgres from one process with multi-row
 * INSERTs (100 rows a statement) into a scratch copy of the table.
 *
 * CPU: the CPU milliseconds each process of the stack spent per
 * 100-event batch over the measured window (bench/cpu-sampler.ts: the apps,
 * every postgres process, the broker, redis), and the total. When the bench
 * starts the stack itself, the apps listen on free ports (BENCH_URL's port for
 * the gateway), so a stack on the default ports is left alone; the services
 * run in one process as `npm start` runs them (`--process-per-app`: one each),
 * on a database and a topic prefix of the run's own (dropped afterwards), so
 * other checkouts' benches and the topics' history stay out of the figures.
 *
 * `--reporting`: the reporting service runs with the stack (ADR 0018), and
 * the window also waits until the projection applied every event and link;
 * the projection's lag (a message on `ingestion.events` or
 * `correlation.links` → applied by the projection, bench/projection-lag.ts)
 * p50/p99 over the load and the catch-up. Comparing the CPU per batch of runs
 * with and without it, back to back, gives the projection's cost per batch.
 */
import { randomUUID } from 'node:crypto';
import { cpus, hostname, loadavg } from 'node:os';
import { Client } from 'pg';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Topics } from '@worktrack/contracts';
import { AppConfig, createLogger, KafkaClient, loadConfig } from '@worktrack/platform';
import { memberWithToken, repoRoot, startAppProcess, startHostedServices, type AppProcess } from '@worktrack/testing';
import { traceSinkFromArgs } from './trace-sink';
import { CpuSampler, formatCpu } from './cpu-sampler';
import { BATCH, batchBody, driveIngest, loadSummary, startTimerSessions } from './ingest-load';
import { ProjectionLagProbe, type LagFigures } from './projection-lag';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 20);
const CONNECTIONS = arg('connections', 16);
const MEMBERS = arg('members', 30);
/** How long an app may take to answer /readyz (a busy shared machine starts them slowly). */
const READY_TIMEOUT_MS = 120_000;
/** `--ingest-only`: no sessions and no correlation (the ingestion pipeline alone). */
const INGEST_ONLY = process.argv.includes('--ingest-only');
/** `--reporting`: the reporting projection runs with the stack. */
const REPORTING = process.argv.includes('--reporting') && !INGEST_ONLY;
const DEFAULT_PORTS = {
  identity: 3101,
  ingestion: Number(process.env.BENCH_INGESTION_PORT ?? 3102),
  correlation: 3103,
  sessions: 3104,
} as const;
const databaseUrl = (): string => process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/worktrack';

/** A Prometheus histogram's cumulative bucket counts. */
function histogramBuckets(metricsText: string, name: string): Array<{ le: string; n: number }> {
  const pattern = new RegExp(`^${name}_bucket\\{[^}]*le="([^"]+)"[^}]*\\} (\\d+)`, 'gm');
  return [...metricsText.matchAll(pattern)].map((m) => ({ le: m[1], n: Number(m[2]) }));
}

/** The p99 of what a histogram recorded between two scrapes, as the upper bound of the bucket that holds it. */
function histogramP99(before: string, after: string, name: string): { p99: string; count: number } {
  const earlier = new Map(histogramBuckets(before, name).map((b) => [b.le, b.n]));
  const buckets = histogramBuckets(after, name).map((b) => ({ le: b.le, n: b.n - (earlier.get(b.le) ?? 0) }));
  const count = buckets.find((b) => b.le === '+Inf')?.n ?? 0;
  const p99 = buckets.find((b) => b.n >= count * 0.99)?.le ?? 'n/a';
  return { p99: p99 === '+Inf' ? '> largest bucket' : `≤ ${Number(p99) * 1000} ms`, count };
}

/** Consumer lag of correlation and of ingestion's link consumer, summed over their topics. */
async function lag(client: KafkaClient): Promise<number> {
  const admin = await client.admin();
  let total = 0;
  for (const [group, topics] of [
    ['correlation.events', [Topics.ingestionEvents, Topics.sessionsEvents]],
    ['ingestion.links', [Topics.correlationLinks]],
  ] as const) {
    const committed = await admin.fetchOffsets({ groupId: client.group(group), topics: topics.map((t) => client.topic(t)) });
    for (const t of topics) {
      const ends = await admin.fetchTopicOffsets(client.topic(t));
      const mine = committed.find((c) => c.topic === client.topic(t))?.partitions ?? [];
      for (const end of ends) {
        const at = Number(mine.find((p) => p.partition === end.partition)?.offset ?? '-1');
        total += Math.max(0, Number(end.high) - (at < 0 ? Number(end.low) : at));
      }
    }
  }
  return total;
}

/** CPU ticks (utime + stime) of a process, 0 once it is gone. */
function ticksOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/**
 * The projection's own CPU: the reporting process and the Postgres backends
 * of its pool (`application_name` `reporting.<instance>`), as ticks per pid.
 */
async function projectionTicks(db: Client, reportingPid: number): Promise<Map<number, number>> {
  const { rows } = await db.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'reporting.%'",
  );
  return new Map([reportingPid, ...rows.map((r) => r.pid)].map((pid) => [pid, ticksOf(pid)]));
}

/** CPU ms between two `projectionTicks` (a backend opened in between counts from zero). */
const projectionMs = (before: Map<number, number>, after: Map<number, number>): number =>
  [...after].reduce((sum, [pid, t]) => sum + (t - (before.get(pid) ?? 0)), 0) * 10;

/** A database of the run's own (the apps migrate it at start), and a topic prefix: set in this process's env, which the apps inherit. */
async function ownDatabaseAndTopics(run: string): Promise<() => Promise<void>> {
  const admin = databaseUrl();
  const name = `bench_ingest_${run}`;
  const client = new Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
  process.env.DATABASE_URL = admin.replace(/\/[^/]*$/, `/${name}`);
  process.env.KAFKA_TOPIC_PREFIX = `bench-ingest-${run}.`;
  return async () => {
    const c = new Client({ connectionString: admin });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await c.end();
  };
}

async function ensureStack(base: string, run: string): Promise<{ started: AppProcess[]; drop?: () => Promise<void> }> {
  const up = await fetch(`${base}/readyz`).then(
    (r) => r.ok,
    () => false,
  );
  if (up) {
    if (REPORTING) throw new Error(`--reporting starts its own stack: stop the one at ${base} or set BENCH_URL to a free port`);
    return { started: [] };
  }
  await traceSinkFromArgs();
  const drop = await ownDatabaseAndTopics(run);
  console.log(
    `no stack at ${base}: creating topics (prefix ${process.env.KAFKA_TOPIC_PREFIX}), starting identity, ingestion, sessions, correlation${REPORTING ? ', reporting' : ''} and a gateway from dist/`,
  );
  const topics = spawnSync(process.execPath, [join(repoRoot(), 'dist/scripts/create-topics.js')], { stdio: 'inherit' });
  if (topics.status !== 0) throw new Error('topic creation failed');
  const started: AppProcess[] = [];
  try {
    const services: string[] = INGEST_ONLY ? ['identity', 'ingestion'] : ['identity', 'ingestion', 'sessions', 'correlation'];
    if (REPORTING) services.push('reporting');
    // As `npm start` runs them: the services in one process; --process-per-app for one process each.
    if (process.argv.includes('--process-per-app'))
      for (const app of services) started.push(await startAppProcess(app, { LOG_LEVEL: 'warn' }, READY_TIMEOUT_MS));
    else started.push(await startHostedServices(services, { LOG_LEVEL: 'warn' }, READY_TIMEOUT_MS));
    started.push(await startAppProcess('gateway', { LOG_LEVEL: 'warn', HTTP_PORT: new URL(base).port || '3000' }, READY_TIMEOUT_MS));
    return { started, drop };
  } catch (err) {
    await Promise.all(started.map((p) => p.stop()));
    await drop();
    throw err;
  }
}

async function ceiling(rows: number): Promise<number> {
  const client = new Client({ connectionString: databaseUrl() });
  await client.connect();
  const schema = `bench_ceiling_${randomUUID().slice(0, 8)}`;
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
    // The same table and indexes as ingestion.activity_events.
    await client.query(`CREATE TABLE ${schema}.activity_events (LIKE ingestion.activity_events INCLUDING ALL)`);
    const member = randomUUID();
    const workspace = randomUUID();
    const statements = Math.ceil(rows / BATCH);
    const started = process.hrtime.bigint();
    for (let s = 0; s < statements; s++) {
      const body = JSON.parse(batchBody(s)) as {
        events: Array<{ source_type: string; event_type: string; occurred_at: string; external_id: string; payload: unknown }>;
      };
      const values: unknown[] = [];
      const tuples = body.events.map((e, i) => {
        values.push(
          randomUUID(),
          workspace,
          member,
          e.source_type,
          e.event_type,
          e.occurred_at,
          new Date().toISOString(),
          JSON.stringify(e.payload),
          e.external_id,
        );
        const b = i * 9;
        return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8}, $${b + 9})`;
      });
      await client.query(
        `INSERT INTO ${schema}.activity_events (id, workspace_id, member_id, source_type, event_type, occurred_at, received_at, payload, external_id) VALUES ${tuples.join(', ')}`,
        values,
      );
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return (statements * BATCH) / seconds;
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}

async function main(): Promise<void> {
  const base = process.env.BENCH_URL ?? 'http://127.0.0.1:3000';
  const run = randomUUID().slice(0, 6);
  const { started, drop } = await ensureStack(base, run);
  try {
    const members = Array.from({ length: MEMBERS }, (_, i) =>
      memberWithToken({ workspace: `bench-${run}`, email: `bench-${i}-${run}@example.com` }),
    );
    const tokens = members.map((m) => m.token);
    // A running session per member: every event of the run gets a link.
    if (!INGEST_ONLY) await startTimerSessions(base, tokens);
    const ingestionUrl =
      started.find((p) => p.app === 'ingestion')?.url ??
      started.map((p) => (p as { urls?: Record<string, string> }).urls?.ingestion).find((u) => u !== undefined) ??
      `http://127.0.0.1:${DEFAULT_PORTS.ingestion}`;
    const ingestionMetrics = (): Promise<string> => fetch(`${ingestionUrl}/metrics`).then((r) => r.text());
    const metricsBefore = await ingestionMetrics();
    const kafka = new KafkaClient(
      'bench',
      loadConfig(AppConfig, { ...process.env, INSTANCE_ID: `bench-${run}` }),
      createLogger('bench', 'error', 'bench'),
    );
    const db = new Client({ connectionString: databaseUrl() });
    await db.connect();
    const probe = REPORTING
      ? new ProjectionLagProbe(await kafka.admin(), db, 'reporting', [
          kafka.topic(Topics.ingestionEvents),
          kafka.topic(Topics.correlationLinks),
        ])
      : undefined;
    // The projection's idle CPU (its consumer groups polling), measured before the load, to subtract from its share.
    const reportingPid = started.find((p) => p.app === 'reporting')?.child.pid;
    let idleMsPerSecond = 0;
    if (REPORTING && reportingPid) {
      await new Promise((r) => setTimeout(r, 5_000)); // the members and sessions applied
      const t0 = await projectionTicks(db, reportingPid);
      const s0 = performance.now();
      await new Promise((r) => setTimeout(r, 10_000));
      idleMsPerSecond = projectionMs(t0, await projectionTicks(db, reportingPid)) / ((performance.now() - s0) / 1000);
    }
    const projectionAtStart = REPORTING && reportingPid ? await projectionTicks(db, reportingPid) : undefined;
    const loadBefore = loadavg();
    const sampler = new CpuSampler(new Map(started.map((p) => [p.child.pid ?? -1, p.app])), databaseUrl());
    await sampler.excludeObserver(db);
    const cpuWindow = await sampler.start();
    probe?.start();
    const result = await driveIngest(base, tokens, CONNECTIONS, SECONDS).done;
    const loadEnded = Date.now();
    // Correlation: how long until the consumers caught up and every event is linked.
    const memberIds = members.map((m) => m.memberId);
    const unlinked = async (): Promise<number> =>
      Number(
        (
          await db.query<{ n: string }>(
            'SELECT count(*) AS n FROM ingestion.activity_events WHERE member_id = ANY($1::uuid[]) AND session_id IS NULL',
            [memberIds],
          )
        ).rows[0].n,
      );
    let lagZeroMs = -1;
    let linkedMs = -1;
    let projectedMs = -1;
    while (!INGEST_ONLY && Date.now() - loadEnded < 60_000 && (lagZeroMs < 0 || linkedMs < 0 || (probe && projectedMs < 0))) {
      if (lagZeroMs < 0 && (await lag(kafka)) === 0) lagZeroMs = Date.now() - loadEnded;
      if (linkedMs < 0 && (await unlinked()) === 0) linkedMs = Date.now() - loadEnded;
      // Applied up to what the topics held once every event was linked: the links included.
      if (probe && linkedMs >= 0 && lagZeroMs >= 0 && projectedMs < 0 && probe.caughtUp) projectedMs = Date.now() - loadEnded;
      await new Promise((r) => setTimeout(r, 100));
    }
    // The window closes once correlation (and the projection) caught up: every batch's whole cost (link included) is in it.
    const cpu = await cpuWindow.end();
    const projectionBusyMs =
      projectionAtStart && reportingPid
        ? projectionMs(projectionAtStart, await projectionTicks(db, reportingPid)) - idleMsPerSecond * cpu.seconds
        : undefined;
    const projection: LagFigures | undefined = await probe?.stop();
    const loadAfter = loadavg();
    await db.end();
    await kafka.close();
    const delay = histogramP99(metricsBefore, await ingestionMetrics(), 'worktrack_link_delay_seconds');

    const { ok, errors, eventsPerSecond } = loadSummary(result, SECONDS);
    const stored = ok * BATCH;
    const ceilingPerSecond = await ceiling(Math.max(stored, 20_000));
    console.log(
      `\nbench:ingest (${hostname()}, ${cpus().length} cores, node ${process.version}): ${SECONDS} s, ${CONNECTIONS} connections, ${MEMBERS} members, batches of ${BATCH}`,
    );
    console.log(
      `  pipeline  ${eventsPerSecond.toFixed(0).padStart(7)} accepted events/s  (${ok} requests of 202, ${errors} errors: non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts})`,
    );
    console.log(
      `  latency   p50 ${result.latency.p50} ms  p90 ${result.latency.p90} ms  p97.5 ${result.latency.p97_5} ms  p99 ${result.latency.p99} ms  max ${result.latency.max} ms per 100-event batch`,
    );
    if (!INGEST_ONLY) console.log(`  links     p99 link delay ${delay.p99} (${delay.count} events linked, event stored → link visible)`);
    if (!INGEST_ONLY)
      console.log(
        `  catch-up  consumer lag 0 after ${lagZeroMs} ms; every event linked after ${linkedMs} ms (from the end of the load; -1: not within 60 s)`,
      );
    if (projection)
      console.log(
        `  reporting projection lag p50 ${projection.p50Ms} ms  p99 ${projection.p99Ms} ms  max ${projection.maxMs} ms (${projection.samples} samples of 100 ms, on the topic → applied, ${projection.pending} not applied); applied everything ${projectedMs} ms after the load`,
      );
    if (projectionBusyMs !== undefined)
      console.log(
        `  reporting projection cpu ${(projectionBusyMs / Math.max(ok, 1)).toFixed(2)} ms per batch (the reporting process and its Postgres backends over the window, less their idle ${idleMsPerSecond.toFixed(1)} ms/s)`,
      );
    console.log(
      `  load avg  ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after (1, 5, 15 min)`,
    );
    console.log(
      `  ceiling   ${ceilingPerSecond.toFixed(0).padStart(7)} rows/s  (one process, multi-row INSERT of 100 rows, same table and indexes)`,
    );
    console.log(`  ratio     ${(eventsPerSecond / ceilingPerSecond).toFixed(2)}  (pipeline / ceiling)`);
    console.log(`  cpu over ${cpu.seconds.toFixed(1)} s: the load${INGEST_ONLY ? '' : ' and the catch-up until every event was linked'}:`);
    for (const line of formatCpu(cpu, ok, 'batch')) console.log(line);
    console.log(
      `cpu_ms_per_unit=${(cpu.totalMs / Math.max(ok, 1)).toFixed(2)} unit="batch of ${BATCH} events" rate_per_s=${eventsPerSecond.toFixed(0)} p99_ms=${result.latency.p99} errors=${errors}` +
        (projection ? ` projection_lag_p50_ms=${projection.p50Ms} projection_lag_p99_ms=${projection.p99Ms}` : '') +
        (projectionBusyMs !== undefined ? ` projection_cpu_ms_per_batch=${(projectionBusyMs / Math.max(ok, 1)).toFixed(2)}` : ''),
    );
  } finally {
    await Promise.all(started.map((p) => p.stop()));
    await drop?.();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
