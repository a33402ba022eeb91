/**
 * Benchmark (not a test): outbound webhooks under session load (D-55).
 *
 *   npm run bench:webhooks [-- --rate 200 --seconds 30 --endpoints 20 --members 100]
 *
 * Starts sessions and webhooks from dist/ on free ports, with a topic prefix
 * and a database of its own (dropped afterwards), and `--endpoints` real HTTP
 * receivers in this process, one of which never answers (each attempt to it
 * waits for the 15 s timeout). Every endpoint belongs to a workspace of its
 * own and names every session type; `--members` members spread over those
 * workspaces walk their sessions (start, pause, resume, close) through
 * `sessions.commands` at `--rate` commands/s in an open loop, each command
 * a session change that becomes one message for one endpoint.
 *
 * Two phases of `--seconds` each, the same load: first without the webhooks
 * service (the baseline), then with it delivering. Figures: the delivery
 * latency (a receiver's arrival time minus the change's `timestamp`, the
 * sessions service's clock) p50/p99/max over the answering endpoints, how
 * many messages reached them, and the CPU milliseconds per session command
 * of the sessions process in each phase (utime + stime from /proc) and of
 * the webhooks process per delivered message.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
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

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const RATE = arg('rate', 200);
const SECONDS = arg('seconds', 30);
const ENDPOINTS = arg('endpoints', 20);
const MEMBERS = arg('members', 100);
const STARTUP_MS = 120_000;
const RUN = randomUUID().slice(0, 8);
const ADMIN_DB = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB_NAME = `bench_hooks_${RUN}`;
const DATABASE_URL = ADMIN_DB.replace(/\/[^/]*$/, `/${DB_NAME}`);
const PREFIX = `bench-hooks-${RUN}.`;
const ENV = { KAFKA_TOPIC_PREFIX: PREFIX, DATABASE_URL, LOG_LEVEL: 'warn' };
const TICK_MS = 10; // USER_HZ 100

function cpuMs(p: AppProcess): number {
  const stat = readFileSync(`/proc/${p.child.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

interface Receiver {
  server: Server;
  url: string;
  hangs: boolean;
}

interface Member {
  actor: ActorV1;
  live?: { id: string; state: 'active' | 'paused' };
  busy: boolean;
}

async function main(): Promise<void> {
  console.log(
    `bench:webhooks ${hostname()}, ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, node ${process.version}`,
  );
  console.log(`  ${RATE} session commands/s for ${SECONDS} s per phase, ${MEMBERS} members, ${ENDPOINTS} endpoints (1 never answers)`);
  const admin = new Client({ connectionString: ADMIN_DB });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${DB_NAME}"`);
  const kafka = testKafka('bench-webhooks', ENV);
  await ensureTopics(await kafka.client.admin(), allTopics(), PREFIX);
  const apps: AppProcess[] = [];
  const receivers: Receiver[] = [];
  const latencies: number[] = [];
  let hungRequests = 0;
  let measuring = false;
  const rpc = new CommandClient(kafka.client, kafka.logger, kafka.metrics, { timeoutMs: 30_000 });
  try {
    for (let i = 0; i < ENDPOINTS; i++) {
      const hangs = i === 0;
      const server = createServer((req, res) => {
        if (hangs) {
          hungRequests++;
          return; // never answers: the attempt times out
        }
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string };
          if (measuring) latencies.push(Date.now() - Date.parse(body.timestamp));
          res.writeHead(204).end();
        });
      });
      server.keepAliveTimeout = 60_000;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      receivers.push({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, hangs });
    }
    apps.push(await startAppProcess('sessions', ENV, STARTUP_MS));
    await rpc.start();

    const workspaces = receivers.map(() => randomUUID());
    const members: Member[] = Array.from({ length: MEMBERS }, (_, i) => {
      const memberId = randomUUID();
      const workspaceId = workspaces[i % workspaces.length];
      return {
        busy: false,
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
    });
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
      } else if (m.live.state === 'active' && Math.random() < 0.5) {
        await rpc.send(PauseSession, { actor: m.actor, sessionId: m.live.id }, key);
        m.live.state = 'paused';
      } else if (m.live.state === 'paused') {
        await rpc.send(ResumeSession, { actor: m.actor, sessionId: m.live.id }, key);
        m.live.state = 'active';
      } else {
        await rpc.send(CloseSession, { actor: m.actor, sessionId: m.live.id }, key);
        m.live = undefined;
      }
    };
    /** Open loop at RATE for `seconds`: command n is due at start + n / RATE, given to a member not waiting for an answer. */
    const load = async (seconds: number): Promise<{ sent: number; skipped: number; failed: number }> => {
      const total = Math.round(RATE * seconds);
      const started = Date.now();
      let sent = 0;
      let skipped = 0;
      let failed = 0;
      const inFlight: Array<Promise<void>> = [];
      for (let n = 0; n < total; n++) {
        const due = started + (n * 1000) / RATE;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const m = members[n % members.length];
        if (m.busy) {
          skipped++;
          continue;
        }
        m.busy = true;
        sent++;
        inFlight.push(
          step(m)
            .catch(() => {
              failed++;
              m.live = undefined;
            })
            .finally(() => {
              m.busy = false;
            }),
        );
      }
      await Promise.all(inFlight);
      return { sent, skipped, failed };
    };

    // Warm-up, then the baseline: sessions alone.
    await load(3);
    const sessions = apps[0];
    let cpu0 = cpuMs(sessions);
    const baseline = await load(SECONDS);
    const baselineCpu = (cpuMs(sessions) - cpu0) / baseline.sent;
    console.log(
      `  baseline: ${baseline.sent} commands (${baseline.skipped} skipped, ${baseline.failed} failed); sessions ${baselineCpu.toFixed(3)} CPU ms per command`,
    );

    // The webhooks service, its endpoints, then the same load.
    const webhooks = await startAppProcess('webhooks', { ...ENV, FEED_ALLOW_PRIVATE_HOSTS: 'true' }, STARTUP_MS);
    apps.push(webhooks);
    for (let i = 0; i < receivers.length; i++) {
      const owner = members[i].actor;
      await rpc.send(
        CreateWebhookEndpoint,
        { actor: owner, url: receivers[i].url, eventTypes: [...WEBHOOK_EVENT_TYPES] },
        { key: owner.memberId },
      );
    }
    await load(3);
    measuring = true;
    cpu0 = cpuMs(sessions);
    const hooksCpu0 = cpuMs(webhooks);
    const delivered0 = latencies.length;
    const loaded = await load(SECONDS);
    const loadedCpu = (cpuMs(sessions) - cpu0) / loaded.sent;
    await new Promise((r) => setTimeout(r, 3_000)); // the last deliveries
    measuring = false;
    const delivered = latencies.length - delivered0;
    const hooksCpu = (cpuMs(webhooks) - hooksCpu0) / Math.max(1, delivered);
    const sorted = [...latencies].sort((a, b) => a - b);
    const expected = Math.round((loaded.sent * (ENDPOINTS - 1)) / ENDPOINTS);
    console.log(
      `  with webhooks: ${loaded.sent} commands (${loaded.skipped} skipped, ${loaded.failed} failed); sessions ${loadedCpu.toFixed(3)} CPU ms per command`,
    );
    console.log(
      `  sessions CPU per command: ${(((loadedCpu - baselineCpu) / baselineCpu) * 100).toFixed(1)} % vs the baseline (budget: +10 %)`,
    );
    console.log(
      `  delivered to the ${ENDPOINTS - 1} answering endpoints: ${delivered} (about ${expected} expected); latency p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted[sorted.length - 1]} ms (budget: p99 2000 ms)`,
    );
    console.log(
      `  the hanging endpoint received ${hungRequests} requests (at most its concurrency at a time); webhooks ${hooksCpu.toFixed(3)} CPU ms per delivery`,
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
