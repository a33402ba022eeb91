/**
 * Benchmark (not a test): a year's summary of a 500-member workspace (D-50).
 *
 *   npm run bench:reports [-- --members 500 --requests 60]
 *
 * Starts reporting from dist/ with a topic prefix and a database of its own
 * (dropped afterwards) and fills its buckets as the projection writes them
 * for `--members` members with 2 sessions (3 h each) and 200 events per
 * working day of 2025, usage on each: one day bucket per member and working
 * day, one hour bucket per member and working hour (9 a day). Then asks
 * `GetReport` (summary, 2025-01-01 … 2025-12-31, group_by member,week, as an
 * owner) `--requests` times through `reporting.commands`, as the gateway does:
 * latency p50/p95/max (the freshness check included), the rows answered, the
 * reporting process's CPU ms per report (utime + stime from /proc), and the
 * EXPLAIN ANALYZE of the aggregate. Then the same report over HTTP as a
 * client asks it, `GET /v1/reports/summary` through a gateway (and identity,
 * for the token) started from dist/ on the same topics and database: the
 * user-facing latency, with the gateway's CPU per report beside reporting's,
 * when the headers arrive beside when the body has, with gzip accepted and
 * without. `--stages` traces every request (the stack's own spans: the
 * gateway's HTTP span, the command, reporting's handler, its freshness wait,
 * each statement, the document) into a receiver in this process and prints
 * each step's p50/p95 at the end — tracing costs time of its own, so the
 * latencies of such a run are not the ones to quote. `--keep-database`
 * leaves the seeded database for psql.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { cpus, loadavg } from 'node:os';
import { Client } from 'pg';
import { allTopics, GetReport, type ActorV1 } from '@worktrack/contracts';
import { CommandClient, ensureTopics } from '@worktrack/platform';
import { memberWithToken, OtlpReceiver, startAppProcess, testKafka, type AppProcess } from '@worktrack/testing';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const MEMBERS = arg('members', 500);
const REQUESTS = arg('requests', 60);
const RUN = randomUUID().slice(0, 8);
const ADMIN_DB = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = `bench_reports_${RUN}`;
const DATABASE_URL = ADMIN_DB.replace(/\/[^/]*$/, `/${DB_NAME}`);
const PREFIX = `bench-reports-${RUN}.`;
const ENV = { KAFKA_TOPIC_PREFIX: PREFIX, DATABASE_URL, LOG_LEVEL: 'warn' };
const TICK_MS = 10; // USER_HZ 100

function cpuMs(p: AppProcess): number {
  const fields = readFileSync(`/proc/${p.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}
const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** `--stages`: every trace of the stack started from here goes to a receiver in this process (the apps inherit the environment). */
async function stageReceiver(): Promise<OtlpReceiver | undefined> {
  for (const k of Object.keys(process.env)) if (k.startsWith('OTEL_')) delete process.env[k];
  if (!process.argv.includes('--stages')) return undefined;
  const receiver = await new OtlpReceiver({ keep: true }).start();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
  process.env.OTEL_TRACES_SAMPLER = 'parentbased_always_on';
  return receiver;
}

/** Each step's duration over the run: spans by service and name (a statement by its first words). */
function printStages(receiver: OtlpReceiver): void {
  const steps = new Map<string, number[]>();
  for (const span of receiver.spans) {
    const statement = typeof span.attributes['db.statement'] === 'string' ? span.attributes['db.statement'] : undefined;
    const name = `${span.service} ${statement ? `pg: ${statement.replace(/\s+/g, ' ').slice(0, 60)}` : span.name}`;
    steps.set(name, [...(steps.get(name) ?? []), Number(span.endNs - span.startNs) / 1e6]);
  }
  console.log(`stages (traced, ${receiver.spans.length} spans; durations in ms):`);
  for (const [name, ds] of [...steps].sort((a, b) => a[0].localeCompare(b[0]))) {
    ds.sort((a, b) => a - b);
    console.log(`  ${name}: n ${ds.length}, p50 ${pct(ds, 50).toFixed(1)}, p95 ${pct(ds, 95).toFixed(1)}`);
  }
}

async function main(): Promise<void> {
  const stages = await stageReceiver();
  const admin = new Client({ connectionString: ADMIN_DB });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${DB_NAME}"`);
  const kafka = testKafka('bench-reports', ENV);
  await ensureTopics(await kafka.client.admin(), allTopics(), PREFIX);
  let app: AppProcess | undefined;
  let identity: AppProcess | undefined;
  let gateway: AppProcess | undefined;
  const db = new Client({ connectionString: DATABASE_URL });
  try {
    app = await startAppProcess('reporting', ENV, 120_000);
    identity = await startAppProcess('identity', ENV, 120_000);
    gateway = await startAppProcess('gateway', ENV, 120_000);
    await db.connect();
    // The owner is a member identity knows (its token is what the gateway checks); the others exist for reporting only.
    const created = memberWithToken(
      { workspace: `bench-reports-${RUN}`, email: `owner-${RUN}@example.com`, timezone: 'Europe/Berlin', role: 'owner' },
      ENV,
    );
    const workspace = created.workspaceId;
    const owner = created.memberId;
    const seedStart = Date.now();
    await db.query(
      `INSERT INTO reporting.members (member_id, workspace_id, kind, timezone, plate_capacity, version)
       SELECT CASE WHEN i = 1 THEN $2::uuid ELSE gen_random_uuid() END, $1, CASE WHEN i % 5 = 0 THEN 'agent' ELSE 'human' END, 'Europe/Berlin', 6, 1
         FROM generate_series(1, $3::int) i
       ON CONFLICT (member_id) DO NOTHING`,
      [workspace, owner, MEMBERS],
    );
    // Working days of 2025; 2 sessions of 3 h (09:00 and 13:00 UTC), 200 events, 20 model calls per member and day.
    await db.query(
      `INSERT INTO reporting.day_buckets
       SELECT $1, m.member_id, d::date, 'intentional', '', '', 21600000, 900000, 2, 190, 10, 0.25, 200000, 40000
         FROM reporting.members m, generate_series('2025-01-01'::date, '2025-12-31'::date, interval '1 day') d
        WHERE extract(isodow FROM d) < 6`,
      [workspace],
    );
    await db.query(
      `INSERT INTO reporting.hour_buckets
       SELECT $1, m.member_id, d + make_interval(hours => h), 'intentional', '', '',
              CASE WHEN h IN (9, 10, 11, 13, 14, 15) THEN 3600000 ELSE 0 END, 0, CASE WHEN h IN (9, 13) THEN 1 ELSE 0 END,
              21, 1, 0.025, 20000, 4000
         FROM reporting.members m, generate_series('2025-01-01'::timestamptz, '2025-12-31'::timestamptz, interval '1 day') d,
              generate_series(8, 16) h
        WHERE extract(isodow FROM d) < 6`,
      [workspace],
    );
    // The week roll-up, as the projection writes it with the day buckets.
    await db.query(
      `INSERT INTO reporting.week_buckets
       SELECT workspace_id, member_id, (bucket - (extract(isodow FROM bucket)::int - 1)), work_type, project_id, goal_id,
              sum(tracked_ms), sum(paused_ms), sum(session_count), sum(linked_event_count), sum(outside_session_event_count),
              sum(usage_cost), sum(input_tokens), sum(output_tokens)
         FROM reporting.day_buckets GROUP BY 1, 2, 3, 4, 5, 6`,
    );
    await db.query(
      'ANALYZE reporting.day_buckets; ANALYZE reporting.week_buckets; ANALYZE reporting.hour_buckets; ANALYZE reporting.members',
    );
    const [{ days, hours }] = (
      await db.query<{ days: string; hours: string }>(
        'SELECT (SELECT count(*) FROM reporting.day_buckets) AS days, (SELECT count(*) FROM reporting.hour_buckets) AS hours',
      )
    ).rows as [{ days: string; hours: string }];
    console.log(`seeded ${MEMBERS} members: ${days} day buckets, ${hours} hour buckets in ${Date.now() - seedStart} ms`);

    const rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 30_000 });
    await rpc.start();
    const week = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
    const actor: ActorV1 = {
      memberId: owner,
      workspaceId: workspace,
      scope: 'full',
      credential: 'api_token',
      profile: {
        memberId: owner,
        workspaceId: workspace,
        role: 'owner',
        timezone: 'Europe/Berlin',
        workingHours: week,
        plateCapacity: 6,
        version: 1,
      },
    };
    const ask = () =>
      rpc.send(
        GetReport,
        { actor, report: 'summary', from: '2025-01-01', to: '2025-12-31', tz: 'Europe/Berlin', groupBy: ['member', 'week'], filters: {} },
        { key: owner },
      );
    for (let i = 0; i < 3; i++) await ask(); // warm up
    const latencies: number[] = [];
    let last: Awaited<ReturnType<typeof ask>> | undefined;
    let bytes = 0;
    const cpuBefore = cpuMs(app);
    const ownBefore = process.cpuUsage();
    for (let i = 0; i < REQUESTS; i++) {
      const t = performance.now();
      const r = await ask();
      // The gateway's part: the document's gzip bytes from the reply, passed through to a client that accepts gzip.
      const body = Buffer.from(r.body ?? '', 'base64');
      latencies.push(performance.now() - t);
      last = r;
      bytes = body.length;
    }
    const cpu = cpuMs(app) - cpuBefore;
    const own = process.cpuUsage(ownBefore);
    latencies.sort((a, b) => a - b);
    const document = gunzipSync(Buffer.from(last?.body ?? '', 'base64'));
    const rows = (JSON.parse(document.toString('utf8')) as { data: unknown[] }).data.length;
    console.log(
      `summary, a year, group_by member,week, ${MEMBERS} members: ${REQUESTS} requests, ${rows} rows each; ` +
        `latency p50 ${pct(latencies, 50).toFixed(0)} ms, p95 ${pct(latencies, 95).toFixed(0)} ms, max ${latencies.at(-1)!.toFixed(0)} ms; ` +
        `reporting CPU ${(cpu / REQUESTS).toFixed(1)} ms per report; ` +
        `asking process (reply decoded and validated, the body's bytes taken from it as the gateway does: ` +
        `${(document.length / 1e6).toFixed(1)} MB of JSON, ${(bytes / 1e6).toFixed(2)} MB gzip) ` +
        `CPU ${((own.user + own.system) / 1000 / REQUESTS).toFixed(1)} ms per report; load ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );
    // The same report over HTTP, as a client asks it: the gateway's authentication, the command, the body passed through.
    const path = '/v1/reports/summary?from=2025-01-01&to=2025-12-31&tz=Europe/Berlin&group_by=member,week';
    // As a browser asks (gzip accepted: fetch inflates it, so the client's CPU includes that), or, with `gzip` false, as a
    // client that takes the body as it is (the gateway inflates it). `headers` is when the response's headers arrived:
    // the server's part; the rest is the body's transfer and the client's inflating.
    const get = async (gzip: boolean): Promise<{ status: number; bytes: number; headers: number }> => {
      const t = performance.now();
      const res = await fetch(`${gateway!.url}${path}`, {
        headers: { authorization: `Bearer ${created.token}`, 'accept-encoding': gzip ? 'gzip' : 'identity' },
      });
      const headers = performance.now() - t;
      const body = await res.arrayBuffer();
      return { status: res.status, bytes: body.byteLength, headers };
    };
    for (const gzip of [true, false]) {
      for (let i = 0; i < 3; i++) await get(gzip); // warm up
      const httpLatencies: number[] = [];
      const headerLatencies: number[] = [];
      const statuses = new Map<number, number>();
      let httpBytes = 0;
      const httpBefore = { reporting: cpuMs(app), gateway: cpuMs(gateway), own: process.cpuUsage() };
      for (let i = 0; i < REQUESTS; i++) {
        const t = performance.now();
        const res = await get(gzip);
        httpLatencies.push(performance.now() - t);
        headerLatencies.push(res.headers);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        httpBytes = res.bytes;
      }
      const httpCpu = {
        reporting: (cpuMs(app) - httpBefore.reporting) / REQUESTS,
        gateway: (cpuMs(gateway) - httpBefore.gateway) / REQUESTS,
        client: (() => {
          const u = process.cpuUsage(httpBefore.own);
          return (u.user + u.system) / 1000 / REQUESTS;
        })(),
      };
      httpLatencies.sort((a, b) => a - b);
      headerLatencies.sort((a, b) => a - b);
      console.log(
        `over HTTP, GET ${path}, accept-encoding ${gzip ? 'gzip' : 'identity'}: ${REQUESTS} requests, ` +
          `statuses ${JSON.stringify(Object.fromEntries(statuses))}, ${(httpBytes / 1e6).toFixed(1)} MB each; ` +
          `latency p50 ${pct(httpLatencies, 50).toFixed(0)} ms, p95 ${pct(httpLatencies, 95).toFixed(0)} ms, ` +
          `max ${httpLatencies.at(-1)!.toFixed(0)} ms (headers p50 ${pct(headerLatencies, 50).toFixed(0)} ms, ` +
          `p95 ${pct(headerLatencies, 95).toFixed(0)} ms); CPU per report: ` +
          `reporting ${httpCpu.reporting.toFixed(1)} ms, gateway ${httpCpu.gateway.toFixed(1)} ms, client ${httpCpu.client.toFixed(1)} ms; ` +
          `load ${loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')}`,
      );
    }
    // The statement the service runs for this report, four of its columns (every member in the zone: the workspace index alone).
    await db.query('BEGIN');
    await db.query("SET LOCAL work_mem = '64MB'; SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL enable_hashagg = off");
    const plan = await db.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, BUFFERS) SELECT string_agg(to_json(g.member_id::text)::text, E'\\x1f'),
              string_agg(to_json(to_char(g.week, 'YYYY-MM-DD'))::text, E'\\x1f'), string_agg((g.tracked_ms / 1000)::text, E'\\x1f'),
              string_agg('"' || trim_scale(g.usage_cost)::text || '"', E'\\x1f'), sum(g.tracked_ms), sum(g.usage_cost) FROM (SELECT * FROM (
         SELECT r.member_id, (r.bucket - ((r.bucket - DATE '2000-01-03') % 7 + 7) % 7) AS week,
                sum(tracked_ms) AS tracked_ms, sum(paused_ms), sum(session_count), sum(linked_event_count), sum(outside_session_event_count),
                sum(usage_cost) AS usage_cost, sum(input_tokens), sum(output_tokens)
           FROM (SELECT member_id, bucket, tracked_ms, paused_ms, session_count, linked_event_count, outside_session_event_count,
                       usage_cost, input_tokens, output_tokens FROM reporting.week_buckets
                 WHERE workspace_id = $1 AND bucket BETWEEN '2025-01-06' AND '2025-12-22'
                UNION ALL
                SELECT member_id, bucket, tracked_ms, paused_ms, session_count, linked_event_count, outside_session_event_count,
                       usage_cost, input_tokens, output_tokens FROM reporting.day_buckets
                 WHERE workspace_id = $1 AND bucket BETWEEN '2025-01-01' AND '2025-12-31' AND bucket NOT BETWEEN '2025-01-06' AND '2025-12-28') r
          GROUP BY 1, 2) g ORDER BY g.member_id, g.week) g`,
      [workspace],
    );
    await db.query('COMMIT');
    console.log(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
    console.log(
      `machine: ${cpus().length} cores, load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    await rpc.stop();
  } finally {
    await db.end().catch(() => undefined);
    await gateway?.stop();
    await identity?.stop();
    await app?.stop();
    // The apps export their last spans as they stop.
    if (stages) printStages(stages);
    await stages?.stop();
    await kafka.close();
    // --keep-database leaves the seeded database for experiments with the statement (psql, EXPLAIN); drop it afterwards.
    if (process.argv.includes('--keep-database')) console.log(`database kept: ${DATABASE_URL}`);
    else await admin.query(`DROP DATABASE IF EXISTS "${DB_NAME}" WITH (FORCE)`);
    await admin.end();
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
