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
 * EXPLAIN ANALYZE of the aggregate. Each latency row is split into cold
 * requests (the workspace's summary revision raised just before, as a write
 * raises it: the cache misses and the document is rendered) and warm ones
 * (the same request again: a hit), alternated, with the hits counted from the
 * reporting process's metrics (ADR 0018). Then the same report over HTTP as a
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
    // A write to the workspace as the projection makes it, as far as the cache sees it: the revision rises (ADR 0018).
    const bump = () =>
      db.query(
        `INSERT INTO reporting.workspace_revisions AS r (workspace_id, topic, partition) VALUES ($1, 'bench', 0)
         ON CONFLICT (workspace_id, topic, partition) DO UPDATE SET revision = r.revision + 1`,
        [workspace],
      );
    const hits = async (): Promise<number> => {
      const text = await (await fetch(`${app!.url}/metrics`)).text();
      return Number(/worktrack_report_summary_cache_total\{[^}]*result="hit"[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const load = () =>
      loadavg()
        .map((l) => l.toFixed(1))
        .join(' ');
    interface Sample {
      ms: number;
      cpu: Record<string, number>;
      hit: boolean;
    }
    /** `REQUESTS` cold and `REQUESTS` warm requests, alternated; each one's latency, the processes' CPU, and whether it hit. */
    const alternate = async (
      once: () => Promise<void>,
      processes: Record<string, AppProcess>,
    ): Promise<{ cold: Sample[]; warm: Sample[]; client: { cold: number; warm: number } }> => {
      const out = { cold: [] as Sample[], warm: [] as Sample[], client: { cold: 0, warm: 0 } };
      for (let i = 0; i < 2 * REQUESTS; i++) {
        const kind = i % 2 === 0 ? 'cold' : 'warm';
        if (kind === 'cold') await bump();
        const hitsBefore = await hits();
        const cpuBefore = Object.fromEntries(Object.entries(processes).map(([name, p]) => [name, cpuMs(p)]));
        const ownBefore = process.cpuUsage();
        const t = performance.now();
        await once();
        const ms = performance.now() - t;
        const own = process.cpuUsage(ownBefore);
        out.client[kind] += (own.user + own.system) / 1000;
        const cpu = Object.fromEntries(Object.entries(processes).map(([name, p]) => [name, cpuMs(p) - cpuBefore[name]]));
        out[kind].push({ ms, cpu, hit: (await hits()) > hitsBefore });
      }
      return out;
    };
    const row = (samples: Sample[], client: number): string => {
      const ms = samples.map((x) => x.ms).sort((a, b) => a - b);
      const cpu = Object.keys(samples[0]?.cpu ?? {})
        .map((name) => `${name} ${(samples.reduce((a, x) => a + x.cpu[name], 0) / samples.length).toFixed(1)} ms`)
        .join(', ');
      return (
        `${samples.length} requests, ${samples.filter((x) => x.hit).length} hits; latency p50 ${pct(ms, 50).toFixed(0)} ms, ` +
        `p95 ${pct(ms, 95).toFixed(0)} ms, max ${ms.at(-1)!.toFixed(0)} ms; CPU per report: ${cpu}, client ${(client / samples.length).toFixed(1)} ms`
      );
    };
    let last: Awaited<ReturnType<typeof ask>> | undefined;
    let bytes = 0;
    const overKafka = await alternate(
      async () => {
        const r = await ask();
        // The gateway's part: the document's gzip bytes from the reply, passed through to a client that accepts gzip.
        bytes = Buffer.from(r.body ?? '', 'base64').length;
        last = r;
      },
      { reporting: app },
    );
    const document = gunzipSync(Buffer.from(last?.body ?? '', 'base64'));
    const rows = (JSON.parse(document.toString('utf8')) as { data: unknown[] }).data.length;
    console.log(
      `summary, a year, group_by member,week, ${MEMBERS} members: ${rows} rows each, ${(document.length / 1e6).toFixed(1)} MB of JSON, ` +
        `${(bytes / 1e6).toFixed(2)} MB gzip; the asking process decodes and validates the reply and takes the body's bytes as the gateway does`,
    );
    console.log(`  cold (revision raised before each): ${row(overKafka.cold, overKafka.client.cold)}; load ${load()}`);
    console.log(`  warm (the same request again):      ${row(overKafka.warm, overKafka.client.warm)}; load ${load()}`);
    // The same report over HTTP, as a client asks it: the gateway's authentication, the command, the body passed through.
    const path = '/v1/reports/summary?from=2025-01-01&to=2025-12-31&tz=Europe/Berlin&group_by=member,week';
    // As a browser asks (gzip accepted: fetch inflates it, so the client's CPU includes that), or, with `gzip` false, as a
    // client that takes the body as it is (the gateway inflates it).
    const statuses = new Map<number, number>();
    let httpBytes = 0;
    const get = async (gzip: boolean): Promise<void> => {
      const res = await fetch(`${gateway!.url}${path}`, {
        headers: { authorization: `Bearer ${created.token}`, 'accept-encoding': gzip ? 'gzip' : 'identity' },
      });
      httpBytes = (await res.arrayBuffer()).byteLength;
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    };
    for (const gzip of [true, false]) {
      for (let i = 0; i < 3; i++) await get(gzip); // warm up
      statuses.clear();
      const overHttp = await alternate(() => get(gzip), { reporting: app, gateway });
      console.log(
        `over HTTP, GET ${path}, accept-encoding ${gzip ? 'gzip' : 'identity'}: statuses ${JSON.stringify(Object.fromEntries(statuses))}, ` +
          `${(httpBytes / 1e6).toFixed(1)} MB each`,
      );
      console.log(`  cold: ${row(overHttp.cold, overHttp.client.cold)}; load ${load()}`);
      console.log(`  warm: ${row(overHttp.warm, overHttp.client.warm)}; load ${load()}`);
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
