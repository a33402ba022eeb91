/**
 * Benchmark (not a test): POST /v1/activity/events at volume, and the
 * machine's ceiling for the same rows.
 *
 *   npm run bench:ingest [-- --seconds 20 --connections 16 --members 30]
 *
 * Uses the running stack at BENCH_URL (default http://127.0.0.1:3000) when it
 * answers; otherwise starts identity, ingestion and a gateway from dist/ (run
 * `npm run infra:up` first) and stops them afterwards. Creates members with
 * the bootstrap command (enough to stay under 600 requests/minute each),
 * drives batches of 100 events from concurrent connections with autocannon
 * for a fixed time, then inserts the same number of rows straight into
 * Postgres from one process with multi-row INSERTs (100 rows a statement)
 * into a scratch copy of the table, and prints both and their ratio.
 */
import { randomUUID } from 'node:crypto';
import { cpus, hostname } from 'node:os';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { memberWithToken, repoRoot, startAppProcess, type AppProcess } from '@worktrack/testing';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 20);
const CONNECTIONS = arg('connections', 16);
const MEMBERS = arg('members', 30);
const BATCH = 100;

function batchBody(seq: number): string {
  const now = Date.now();
  return JSON.stringify({
    events: Array.from({ length: BATCH }, (_, i) => ({
      source_type: 'bench',
      event_type: i % 3 === 0 ? 'test.run' : 'tool.call',
      occurred_at: new Date(now - i * 1000).toISOString(),
      external_id: `b${seq}-${i}-${randomUUID().slice(0, 8)}`,
      payload: { tool: 'pytest', duration_ms: 1234 + i, ok: i % 7 !== 0, args: ['-q', `tests/unit/test_${i}.py`], host: 'runner-12' },
    })),
  });
}

async function ensureStack(base: string): Promise<AppProcess[]> {
  const up = await fetch(`${base}/readyz`).then(
    (r) => r.ok,
    () => false,
  );
  if (up) return [];
  console.log(`no stack at ${base}: creating topics, starting identity, ingestion and a gateway from dist/`);
  const topics = spawnSync(process.execPath, [join(repoRoot(), 'dist/scripts/create-topics.js')], { stdio: 'inherit' });
  if (topics.status !== 0) throw new Error('topic creation failed');
  const started: AppProcess[] = [];
  try {
    for (const app of ['identity', 'ingestion'] as const) started.push(await startAppProcess(app, { LOG_LEVEL: 'warn' }));
    started.push(await startAppProcess('gateway', { LOG_LEVEL: 'warn', HTTP_PORT: new URL(base).port || '3000' }));
    return started;
  } catch (err) {
    await Promise.all(started.map((p) => p.stop()));
    throw err;
  }
}

async function ceiling(rows: number): Promise<number> {
  const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/worktrack';
  const client = new Client({ connectionString: url });
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
  const started = await ensureStack(base);
  try {
    const run = randomUUID().slice(0, 6);
    const tokens = Array.from(
      { length: MEMBERS },
      (_, i) => memberWithToken({ workspace: `bench-${run}`, email: `bench-${i}-${run}@example.com` }).token,
    );
    let seq = 0;
    const result = await autocannon({
      url: `${base}/v1/activity/events`,
      connections: CONNECTIONS,
      duration: SECONDS,
      pipelining: 1,
      requests: [
        {
          method: 'POST',
          setupRequest: (req) => {
            const n = seq++;
            return {
              ...req,
              headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[n % tokens.length]}` },
              body: batchBody(n),
            };
          },
        },
      ],
    });
    const ok = result['2xx'];
    const errors = result.non2xx + result.errors + result.timeouts;
    const eventsPerSecond = (ok * BATCH) / (result.duration || SECONDS);
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
    console.log(
      `  ceiling   ${ceilingPerSecond.toFixed(0).padStart(7)} rows/s  (one process, multi-row INSERT of 100 rows, same table and indexes)`,
    );
    console.log(`  ratio     ${(eventsPerSecond / ceilingPerSecond).toFixed(2)}  (pipeline / ceiling)`);
  } finally {
    await Promise.all(started.map((p) => p.stop()));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
