/**
 * Benchmark (not a test): connector webhooks end to end, and webhook answer
 * times while large calendar feeds are polled.
 *
 *   npm run bench:connectors [-- --seconds 15 --connections 8 --rate 20 --feeds 6]
 *
 * Starts identity, ingestion, connectors and a gateway from dist/ on free
 * ports, with a topic prefix and a database of its own (dropped afterwards),
 * so it never touches a running stack. Then:
 *
 * 1. throughput — `--connections` senders post signed GitHub push deliveries
 *    (GitHub's published example body, a new delivery id each) to
 *    /hooks/github/:id for `--seconds`; deliveries/s is the number posted
 *    divided by the time until the last is ingested (stored through
 *    IngestEvents: on the timeline);
 * 2. latency under polling — an open loop of `--rate` deliveries/s, first
 *    alone, then while `--feeds` calendar connectors are created, each polling
 *    a large feed (60 daily series begun in 2016 and 3,000 single events)
 *    from a local server; the p99 answer time of each.
 *
 * CPU: for each process started, milliseconds of CPU (utime + stime from
 * /proc/<pid>/stat, deltas over the phase) per delivery.
 */
import { randomUUID, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, hostname, loadavg } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { repoRoot, runCreateMember, startAppProcess, type AppProcess } from '@worktrack/testing';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 15);
const CONNECTIONS = arg('connections', 8);
const RATE = arg('rate', 20);
const FEEDS = arg('feeds', 6);
const SECRET = 'bench-webhook-secret';
/** A loaded shared machine can take a while to start an app. */
const STARTUP_MS = 120_000;
const RUN = randomUUID().slice(0, 8);
const ADMIN_DB = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = `bench_conn_${RUN}`;
const DATABASE_URL = ADMIN_DB.replace(/\/[^/]*$/, `/${DB_NAME}`);
const ENV = { KAFKA_TOPIC_PREFIX: `bench-conn-${RUN}.`, DATABASE_URL, LOG_LEVEL: 'warn' };

// ---------------------------------------------------------------- CPU from /proc

const TICK_MS = 10; // USER_HZ 100

function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime (fields 14, 15 of the line)
}

function cpuSnapshot(apps: AppProcess[]): Map<string, number> {
  return new Map(apps.map((a) => [a.app, a.child.pid ? cpuMs(a.child.pid) : 0]));
}

function cpuPerUnit(before: Map<string, number>, after: Map<string, number>, units: number, unit: string): string {
  const parts = [...after].map(([app, ms]) => `${app} ${((ms - (before.get(app) ?? 0)) / Math.max(1, units)).toFixed(2)}`);
  const total = [...after].reduce((sum, [app, ms]) => sum + ms - (before.get(app) ?? 0), 0);
  return `  CPU ms per ${unit}: ${parts.join(', ')}; all ${(total / Math.max(1, units)).toFixed(2)}`;
}

// ---------------------------------------------------------------- HTTP

async function json<T>(url: string, init: RequestInit & { token?: string } = {}): Promise<T> {
  const res = await fetch(url, {
    ...init,
    headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

function pushBody(): Buffer {
  // GitHub's published push example (@octokit/webhooks-examples).
  const examples = JSON.parse(
    readFileSync(join(repoRoot(), 'node_modules', '@octokit', 'webhooks-examples', 'api.github.com', 'index.json'), 'utf8'),
  ) as Array<{ name: string; examples: unknown[] }>;
  const push = examples.find((e) => e.name === 'push')?.examples[0];
  return Buffer.from(JSON.stringify(push));
}

async function deliver(gateway: string, connectorId: string, raw: Buffer): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(`${gateway}/hooks/github/${connectorId}`, {
      method: 'POST',
      body: raw,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': randomUUID(),
        'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`,
      },
    });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - started };
  } catch {
    return { status: 0, ms: performance.now() - started };
  }
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** An open loop at `rate`/s for `seconds`: answer times in ms. */
async function openLoop(
  gateway: string,
  connectorId: string,
  raw: Buffer,
  rate: number,
  seconds: number,
): Promise<Array<{ status: number; ms: number }>> {
  const pending: Array<Promise<{ status: number; ms: number }>> = [];
  const start = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(deliver(gateway, connectorId, raw));
  }
  return Promise.all(pending);
}

function latencyLine(label: string, samples: Array<{ status: number; ms: number }>): string {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const statuses = new Map<number, number>();
  for (const s of samples.filter((x) => x.status >= 300 || x.status === 0)) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
  const errors = [...statuses].map(([status, n]) => `${status}×${n}`).join(', ') || 'none';
  return `  ${label.padEnd(34)} n=${samples.length}  p50 ${percentile(ms, 50).toFixed(1)} ms  p99 ${percentile(ms, 99).toFixed(1)} ms  max ${(ms.at(-1) ?? NaN).toFixed(1)} ms  non-2xx ${errors}`;
}

// ---------------------------------------------------------------- the large feed

function largeFeed(): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//bench//large feed//EN', 'X-WR-TIMEZONE:Europe/Berlin'];
  for (let i = 0; i < 60; i++) {
    lines.push('BEGIN:VEVENT', `UID:daily-${i}@bench`, 'DTSTAMP:20260101T000000Z');
    lines.push(`DTSTART;TZID=Europe/Berlin:2016${String((i % 12) + 1).padStart(2, '0')}04T${String(8 + (i % 9)).padStart(2, '0')}0000`);
    lines.push(
      'DURATION:PT15M',
      i % 2 ? 'RRULE:FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR' : 'RRULE:FREQ=WEEKLY',
      `SUMMARY:Series ${i}`,
      'END:VEVENT',
    );
  }
  const base = Date.now() - 30 * 86_400_000;
  for (let i = 0; i < 3_000; i++) {
    const start = new Date(base + i * 3_600_000)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    lines.push('BEGIN:VEVENT', `UID:single-${i}@bench`, 'DTSTAMP:20260101T000000Z', `DTSTART:${start}`, 'DURATION:PT30M');
    lines.push(`SUMMARY:Meeting ${i}`, `ATTENDEE:mailto:a${i}@example.com`, 'END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return lines.join('\r\n');
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const admin = new Client({ connectionString: ADMIN_DB });
  admin.on('error', () => undefined);
  await admin.connect();
  await admin.query(`CREATE DATABASE "${DB_NAME}"`);
  const apps: AppProcess[] = [];
  const feed = largeFeed();
  const feedServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/calendar' }).end(feed));
  await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
  try {
    const topics = spawnSync(process.execPath, [join(repoRoot(), 'dist/scripts/create-topics.js')], {
      stdio: 'inherit',
      env: { ...process.env, ...ENV },
    });
    if (topics.status !== 0) throw new Error('topic creation failed');
    for (const app of ['identity', 'ingestion'] as const) apps.push(await startAppProcess(app, ENV, STARTUP_MS));
    apps.push(
      await startAppProcess('connectors', { ...ENV, FEED_ALLOW_PRIVATE_HOSTS: 'true', CALENDAR_SCHEDULER_INTERVAL_MS: '200' }, STARTUP_MS),
    );
    apps.push(await startAppProcess('gateway', ENV, STARTUP_MS));
    const gateway = apps.at(-1)?.url ?? '';

    const created = runCreateMember(
      ['--workspace', `bench-${RUN}`, '--email', `bench-${RUN}@example.com`, '--timezone', 'Europe/Berlin'],
      ENV,
    );
    if (created.status !== 0) throw new Error(`create-member failed: ${created.stderr}`);
    const token = (JSON.parse(created.stdout.trim()) as { token: string }).token;
    const github = await json<{ data: { connector_id: string } }>(`${gateway}/v1/connectors`, {
      method: 'POST',
      token,
      body: JSON.stringify({ kind: 'github', name: 'bench', secret: SECRET }),
    });
    const connectorId = github.data.connector_id;
    const raw = pushBody();
    const db = new Client({ connectionString: DATABASE_URL });
    db.on('error', () => undefined);
    await db.connect();
    const ingested = async (): Promise<number> =>
      Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM connectors.deliveries WHERE state = 'ingested'`)).rows[0].n);

    console.log(
      `\nbench:connectors (${hostname()}, ${cpus().length} cores, load ${loadavg()[0].toFixed(1)}, node ${process.version}): ${SECONDS} s, ${CONNECTIONS} connections; open loop ${RATE}/s; ${FEEDS} feeds of ${(feed.length / 1024).toFixed(0)} KiB`,
    );

    // 1. throughput, hook → timeline
    for (let i = 0; i < 20; i++) await deliver(gateway, connectorId, raw); // warm-up
    while ((await ingested()) < 20) await new Promise((r) => setTimeout(r, 100));
    const base = await ingested();
    const cpu0 = cpuSnapshot(apps);
    const started = performance.now();
    const deadline = started + SECONDS * 1000;
    const answers: Array<{ status: number; ms: number }> = [];
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < deadline) answers.push(await deliver(gateway, connectorId, raw));
      }),
    );
    const accepted = answers.filter((a) => a.status === 202 || a.status === 200).length;
    while ((await ingested()) - base < accepted && performance.now() - started < SECONDS * 1000 + 120_000) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const endToEnd = (performance.now() - started) / 1000;
    const cpu1 = cpuSnapshot(apps);
    console.log(
      `  throughput: ${accepted} deliveries accepted, all ingested after ${endToEnd.toFixed(1)} s → ${(accepted / endToEnd).toFixed(1)} deliveries/s end to end`,
    );
    console.log(latencyLine('answer time under full load', answers));
    console.log(cpuPerUnit(cpu0, cpu1, accepted, 'delivery'));

    // 2. answer times at a steady rate, without and with calendar polling
    const cpu2 = cpuSnapshot(apps);
    const quiet = await openLoop(gateway, connectorId, raw, RATE, SECONDS);
    const cpu3 = cpuSnapshot(apps);
    console.log(latencyLine(`${RATE}/s, no polling`, quiet));
    console.log(cpuPerUnit(cpu2, cpu3, quiet.length, 'delivery'));

    const { port } = feedServer.address() as AddressInfo;
    const polled = async (): Promise<number> =>
      Number(
        (
          await db.query<{ n: string }>(
            `SELECT count(*) AS n FROM connectors.connectors WHERE kind = 'calendar' AND last_polled_at IS NOT NULL AND last_error IS NULL`,
          )
        ).rows[0].n,
      );
    const cpu4 = cpuSnapshot(apps);
    const loud = openLoop(gateway, connectorId, raw, RATE, SECONDS);
    for (let i = 0; i < FEEDS; i++) {
      const body = JSON.stringify({ kind: 'calendar', name: `feed ${i}`, feed_url: `http://127.0.0.1:${port}/feed-${i}.ics` });
      for (let attempt = 1; ; attempt++) {
        try {
          await json(`${gateway}/v1/connectors`, { method: 'POST', token, body });
          break;
        } catch (err) {
          if (attempt >= 3) throw err; // a loaded machine can time a command out (503): try again
        }
      }
      await new Promise((r) => setTimeout(r, (SECONDS * 1000) / (FEEDS + 1)));
    }
    const during = await loud;
    const cpu5 = cpuSnapshot(apps);
    console.log(latencyLine(`${RATE}/s, while ${await polled()} of ${FEEDS} feeds polled (successfully)`, during));
    console.log(cpuPerUnit(cpu4, cpu5, during.length, 'delivery (incl. the polls)'));
    await db.end();
  } finally {
    feedServer.close();
    await Promise.all(apps.map((a) => a.stop()));
    await admin.query(`DROP DATABASE IF EXISTS "${DB_NAME}" WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
