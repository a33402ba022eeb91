/**
 * Fault test (not a unit test): availability under `kill -9` while under
 * load, and the data promises through it.
 *
 *   npm run faults [-- --members 20 --workers 8 --gap 20] [--hosted]
 *
 * Starts a stack of its own: a Kafka broker on a free port with a temporary
 * data directory (scripts/infra.sh kafka-up), a database and a topic prefix of
 * its own on the machine's Postgres and Redis, and identity, ingestion,
 * sessions, correlation and two gateway replicas as processes under the
 * `npm start` supervisor (scripts/supervisor.mjs). Creates members, starts a
 * timer session for each, and drives batches of events through both gateways
 * with an at-least-once client (a batch is sent again, to the other replica,
 * until it gets its 202; the external ids make a resend harmless) for the
 * whole fault schedule (about 7 × `--gap` seconds plus recoveries). Meanwhile
 * it kills, one after the other and `--gap` seconds apart: a gateway replica,
 * ingestion, correlation, sessions, identity and the broker (restarted at
 * once with infra.sh, on the same data). For each it measures when requests
 * succeed again (the arrival of the first 202 of a request sent after the kill; for the
 * broker, after it is back) and when the killed app is ready again. At the
 * end: every acknowledged event stored once (0 lost, 0 doubled) and linked
 * to its member's session. Stops everything it started.
 *
 * `--hosted` runs the six services in one process, as `npm start` does
 * (WORKTRACK_SERVICES), beside the two gateway replicas: the faults
 * are then the gateway replica, that one process (every service at once) and
 * the broker.
 *
 * Exit 1 when a data promise breaks or an availability target is missed:
 * requests succeed again within 3 s of a gateway replica's kill, 10 s of a
 * service's (the services' process's with --hosted), 20 s of the broker being
 * back.
 */
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { allTopics } from '@worktrack/contracts';
import { AppConfig, createLogger, ensureDatabase, ensureTopics, KafkaClient, loadConfig } from '@worktrack/platform';
import { freePort, freePortPair, mainOf, repoRoot, runCreateMember } from '@worktrack/testing';
import { createSupervisor, type SupervisorLike } from './supervisor';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MEMBERS = arg('members', 20);
const WORKERS = arg('workers', 8);
const GAP_S = arg('gap', 20);
const HOSTED = process.argv.includes('--hosted');
/** The services (the hosted process runs them in this order; the first one's main hosts them, as in scripts/apps.mjs). */
const SERVICES = ['identity', 'ingestion', 'correlation', 'sessions', 'plate', 'connectors'];
/** The availability targets: requests succeed again within these, after the kill (after the broker is back). */
const TARGET_MS = { gateway: 3_000, service: 10_000, broker: 20_000 };
const BATCH = 100;
const REQUEST_TIMEOUT_MS = 5_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(what: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await probe().catch(() => false)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

const ready = (url: string): Promise<boolean> => fetch(`${url}/readyz`).then((r) => r.status === 200);

async function main(): Promise<void> {
  const id = randomUUID().slice(0, 6);
  const brokerPort = await freePortPair();
  const kafkaDir = mkdtempSync(join(tmpdir(), 'wt-faults-kafka-'));
  const brokers = `127.0.0.1:${brokerPort}`;
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/wt_faults_${id}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    MIGRATE_ON_START: 'true',
    KAFKA_BROKERS: brokers,
    KAFKA_TOPIC_PREFIX: `faults${id}.`,
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
    SHUTDOWN_TIMEOUT_MS: '10000',
    KAFKA_GROUP_JANITOR_INTERVAL_MS: '5000',
  };
  const infra = (cmd: string): number => {
    const r = spawnSync('bash', [join(repoRoot(), 'scripts', 'infra.sh'), cmd], {
      stdio: 'inherit',
      env: { ...process.env, KAFKA_PORT: String(brokerPort), KAFKA_DIR: kafkaDir, KAFKA_BROKERS: '' },
    });
    return r.status ?? 1;
  };
  const log = (line: string): void => console.log(`[faults +${((Date.now() - t0) / 1000).toFixed(1)} s] ${line}`);
  const t0 = Date.now();
  let supervisor: SupervisorLike | undefined;
  const cleanup = async (): Promise<void> => {
    await supervisor?.stop(15_000);
    infra('kafka-down');
    rmSync(kafkaDir, { recursive: true, force: true });
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "wt_faults_${id}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping what was started`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  try {
    if (infra('kafka-up') !== 0) throw new Error('the broker did not start');
    const config = loadConfig(AppConfig, env);
    const setup = new KafkaClient('faults-setup', config, createLogger('faults-setup', 'warn', 'faults-setup'));
    await ensureTopics(await setup.admin(), allTopics(), config.KAFKA_TOPIC_PREFIX);
    await setup.close();
    await ensureDatabase(dbUrl.toString());

    supervisor = await createSupervisor({ log });
    // The supervised processes, and the /readyz of every app each one serves.
    const urls = new Map<string, string[]>();
    const add = async (name: string, main: string, processEnv: NodeJS.ProcessEnv): Promise<void> => {
      const port = await freePort();
      urls.set(name, [`http://127.0.0.1:${port}`]);
      supervisor!.add(name, {
        command: process.execPath,
        args: ['--enable-source-maps', mainOf(main)],
        cwd: repoRoot(),
        env: { ...env, ...processEnv, HTTP_PORT: String(port) },
      });
    };
    if (HOSTED) {
      // As scripts/start.mjs: one process, each service on a port of its own, no fixed instance id.
      const ports = await Promise.all(SERVICES.map(() => freePort()));
      urls.set(
        'services',
        ports.map((p) => `http://127.0.0.1:${p}`),
      );
      supervisor.add('services', {
        command: process.execPath,
        args: ['--enable-source-maps', mainOf(SERVICES[0])],
        cwd: repoRoot(),
        env: {
          ...env,
          WORKTRACK_SERVICES: SERVICES.join(','),
          ...Object.fromEntries(SERVICES.map((s, i) => [`${s.toUpperCase()}_HTTP_PORT`, String(ports[i])])),
        },
      });
    } else {
      for (const app of ['identity', 'ingestion', 'sessions', 'correlation']) await add(app, app, { INSTANCE_ID: `${app}-${id}` });
    }
    for (const app of ['gateway-a', 'gateway-b']) await add(app, 'gateway', { INSTANCE_ID: `${app}-${id}` });
    const apps = [...urls.keys()];
    const allReady = async (name: string): Promise<boolean> => (await Promise.all(urls.get(name)!.map(ready))).every(Boolean);
    await until('every app ready', 120_000, async () => (await Promise.all(apps.map(allReady))).every(Boolean));
    log('stack ready');

    const gateways = [urls.get('gateway-a')![0], urls.get('gateway-b')![0]];
    const members = Array.from({ length: MEMBERS }, (_, i) => {
      const r = runCreateMember(['--workspace', `faults-${id}`, '--email', `f${i}-${id}@example.com`], env as Record<string, string>);
      if (r.status !== 0) throw new Error(`create-member failed: ${r.stderr}`);
      return JSON.parse(r.stdout.trim()) as { member_id: string; token: string };
    });
    for (const m of members) {
      // The same idempotency key on a retry returns the same session.
      const body = JSON.stringify({ intent_text: 'faults', source: 'timer', idempotency_key: `faults-${m.member_id}` });
      for (let attempt = 1; ; attempt++) {
        const res = await fetch(`${gateways[attempt % 2]}/v1/sessions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${m.token}` },
          body,
        }).catch((err: unknown) => err as Error);
        if (!(res instanceof Error) && (res.status === 201 || res.status === 200)) break;
        const why = res instanceof Error ? res.message : `${res.status} ${await res.text()}`;
        if (attempt >= 5) throw new Error(`could not start a session: ${why}`);
        await sleep(500);
      }
    }
    log(`${MEMBERS} members with a running session`);

    // The at-least-once client: a batch is sent until it gets its 202, alternating replicas.
    const acked = new Set<string>();
    /** Successful requests: when each was sent and when its 202 came. */
    const successes: Array<{ sent: number; done: number; firstId: string }> = [];
    const failures = { unavailable: 0, connection: 0, other: 0 };
    let stopLoad = false;
    const worker = async (w: number): Promise<void> => {
      for (let seq = 0; !stopLoad; seq++) {
        const member = members[(w + seq * WORKERS) % members.length];
        const ids = Array.from({ length: BATCH }, (_, i) => `f${w}-${seq}-${i}-${id}`);
        const body = JSON.stringify({
          events: ids.map((external_id, i) => ({
            source_type: 'faults',
            event_type: 'tool.call',
            external_id,
            occurred_at: new Date(Date.now() - i).toISOString(),
            payload: { n: i },
          })),
        });
        for (let attempt = 0; ; attempt++) {
          const started = Date.now();
          const gateway = gateways[(w + attempt) % gateways.length];
          try {
            const res = await fetch(`${gateway}/v1/activity/events`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${member.token}` },
              body,
              signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS + 5_000),
            });
            await res.arrayBuffer();
            if (res.status === 202) {
              for (const x of ids) acked.add(x);
              successes.push({ sent: started, done: Date.now(), firstId: ids[0] });
              break;
            }
            if (res.status === 503) failures.unavailable++;
            else failures.other++;
            if (res.status === 429) await sleep(1_000);
          } catch {
            failures.connection++;
          }
          await sleep(Math.min(100 * 2 ** attempt, 1_000));
        }
      }
    };
    const load = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));

    /** When requests succeed again: the first 202 (its arrival) of a request sent at or after `from`. */
    const succeededAfter = (from: number): Promise<number> =>
      until('a request to succeed', 120_000, () => Promise.resolve(successes.some((s) => s.sent >= from))).then(
        () => Math.min(...successes.filter((s) => s.sent >= from).map((s) => s.done)) - from,
      );

    /**
     * When links resume (correlation's work, off the request path): the first
     * time an event of a batch sent at or after `from` is seen linked to its
     * session. Polled every 200 ms from `from` on, concurrently with the rest.
     */
    const watchDb = new Client({ connectionString: dbUrl.toString() });
    await watchDb.connect();
    const linkedAfter = async (from: number): Promise<number> => {
      const started = Date.now();
      for (;;) {
        const ids = successes.filter((x) => x.sent >= from).map((x) => x.firstId);
        if (ids.length > 0) {
          const r = await watchDb.query(
            `SELECT 1 FROM ingestion.activity_events WHERE external_id = ANY($1::text[]) AND session_id IS NOT NULL LIMIT 1`,
            [ids.slice(0, 200)],
          );
          if (r.rowCount) return Date.now() - from;
        }
        if (Date.now() - started > 120_000) return -1;
        await sleep(200);
      }
    };

    const results: Array<{ fault: string; requestsMs: number; readyMs: number | string; linksMs: number; targetMs: number }> = [];
    await sleep(GAP_S * 1000);
    for (const app of HOSTED ? ['gateway-a', 'services'] : ['gateway-a', 'ingestion', 'correlation', 'sessions', 'identity']) {
      const child = supervisor.child(app);
      if (!child?.pid) throw new Error(`${app} is not running`);
      const killedAt = Date.now();
      child.kill('SIGKILL');
      const links = linkedAfter(killedAt);
      log(`kill -9 ${app} (pid ${child.pid})`);
      await until(`${app} restarted`, 60_000, () =>
        Promise.resolve(supervisor!.child(app) !== undefined && supervisor!.child(app) !== child),
      );
      await until(`${app} ready again`, 120_000, () => allReady(app));
      const readyMs = Date.now() - killedAt;
      const requestsMs = await succeededAfter(killedAt);
      const linksMs = await links;
      results.push({
        fault: `kill -9 ${app}`,
        requestsMs,
        readyMs,
        linksMs,
        targetMs: app.startsWith('gateway') ? TARGET_MS.gateway : TARGET_MS.service,
      });
      log(
        `${app}: requests succeed again ${requestsMs} ms after the kill; ready again after ${readyMs} ms; links resume after ${linksMs} ms`,
      );
      await sleep(GAP_S * 1000);
    }
    // The broker: kill -9, then restarted at once by infra.sh on the same data.
    const brokerPid = Number(readFileSync(join(kafkaDir, 'kafka.pid'), 'utf8').trim());
    const brokerKilledAt = Date.now();
    process.kill(brokerPid, 'SIGKILL');
    log(`kill -9 broker (pid ${brokerPid}); restarting it`);
    if (infra('kafka-up') !== 0) throw new Error('the broker did not restart');
    const brokerBack = Date.now();
    log(`broker back after ${brokerBack - brokerKilledAt} ms`);
    const brokerLinks = linkedAfter(brokerBack);
    const requestsMs = await succeededAfter(brokerBack);
    const readyMs = await until('every app ready after the broker', 120_000, async () =>
      (await Promise.all(apps.map(allReady))).every(Boolean),
    );
    results.push({
      fault: `kill -9 broker (down ${brokerBack - brokerKilledAt} ms incl. restart)`,
      requestsMs,
      readyMs,
      linksMs: await brokerLinks,
      targetMs: TARGET_MS.broker,
    });
    log(`broker: requests succeed again ${requestsMs} ms after it is back; every app ready after ${readyMs} ms`);

    await sleep(GAP_S * 1000);
    stopLoad = true;
    await load;
    const loadEnded = Date.now();
    log(`load done: ${acked.size} events acknowledged`);

    await watchDb.end();
    // The data promises.
    const db = new Client({ connectionString: dbUrl.toString() });
    await db.connect();
    const memberIds = members.map((m) => m.member_id);
    const stored = async (): Promise<{ rows: number; distinct: number; unlinked: number }> => {
      const r = await db.query<{ rows: string; distinct: string; unlinked: string }>(
        `SELECT count(*) AS rows, count(DISTINCT external_id) AS distinct, count(*) FILTER (WHERE session_id IS NULL) AS unlinked
           FROM ingestion.activity_events WHERE member_id = ANY($1::uuid[]) AND source_type = 'faults'`,
        [memberIds],
      );
      return { rows: Number(r.rows[0].rows), distinct: Number(r.rows[0].distinct), unlinked: Number(r.rows[0].unlinked) };
    };
    let linkedMs = -1;
    while (Date.now() - loadEnded < 60_000) {
      if ((await stored()).unlinked === 0) {
        linkedMs = Date.now() - loadEnded;
        break;
      }
      await sleep(200);
    }
    const final = await stored();
    const storedIds = new Set(
      (
        await db.query<{ external_id: string }>(
          `SELECT external_id FROM ingestion.activity_events WHERE member_id = ANY($1::uuid[]) AND source_type = 'faults'`,
          [memberIds],
        )
      ).rows.map((r) => r.external_id),
    );
    await db.end();
    const lost = [...acked].filter((x) => !storedIds.has(x)).length;

    console.log(
      `\nfaults (${hostname()}, ${cpus().length} cores, node ${process.version}${HOSTED ? ', services in one process' : ''}): ${acked.size} events acknowledged from ${MEMBERS} members, ${WORKERS} workers, batches of ${BATCH}, request timeout ${REQUEST_TIMEOUT_MS} ms`,
    );
    const missed = results.filter((r) => r.requestsMs > r.targetMs);
    for (const r of results) {
      console.log(
        `  ${r.fault.padEnd(48)} requests succeed again after ${String(r.requestsMs).padStart(6)} ms (target ${r.targetMs} ms${r.requestsMs > r.targetMs ? ': MISSED' : ''}); ready again after ${r.readyMs} ms; links resume after ${r.linksMs} ms`,
      );
    }
    console.log(`  failed attempts (resent): 503 ${failures.unavailable}, connection ${failures.connection}, other ${failures.other}`);
    console.log(
      `  data: ${lost} lost, ${final.rows - final.distinct} doubled, ${final.unlinked} unlinked (${final.rows} rows); all linked ${linkedMs} ms after the load (-1: not within 60 s)`,
    );
    if (lost > 0 || final.rows !== final.distinct || final.unlinked > 0 || missed.length > 0) process.exitCode = 1;
  } finally {
    await cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
