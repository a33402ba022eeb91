/**
 * Benchmark (not a test): POST /v1/usage against POST /v1/activity/events,
 * A/B in one sitting on one stack (D-45 … D-48, ADR 0017).
 *
 *   npm run bench:usage [-- --seconds 15 --connections 8 --members 30 --rate 6 --rounds 3 --warmup 5 --only usage|events]
 *
 * Uses the running stack at BENCH_URL (default http://127.0.0.1:3000) when it
 * answers; otherwise starts identity, ingestion, sessions, correlation (in one
 * process, as `npm start`) and a gateway from dist/, and stops them after.
 * Creates members (enough to stay under 600 requests/minute each), starts a
 * timer session for each (every record and event gets linked) and puts a
 * price list in place. Then two phases of the same length, concurrency and
 * pace (`--rate` batches a second, so the stack's idle CPU weighs the same on
 * both; `--rate 0` for as fast as it goes):
 * batches of 100 activity events, then batches of 100 usage records (half
 * with a reported cost, half costed from the price list, every one linked
 * by correlation). Each phase's CPU window (bench/cpu-sampler.ts: the apps,
 * postgres, the broker, redis) runs from the start of its load until every
 * row it stored is linked, so a batch's whole cost is in it. Prints CPU
 * milliseconds per 100-row batch for each, and their ratio.
 *
 * A/B in one sitting: after an unmeasured warm-up of each kind (`--warmup`
 * seconds: the JIT and the pools are warm before anything is measured),
 * `--rounds` rounds alternate the order (events, usage; then usage,
 * events; …), so a drift of the machine's load weighs on both kinds alike.
 * Each round prints both phases and their ratio; the end prints the sums over
 * the rounds. `--only usage` (or `events`) runs one kind alone, for a CPU
 * profile of it (bench/cpu-profile.cjs).
 */
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { cpus, hostname, loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { memberWithToken, repoRoot, startAppProcess, startHostedServices, type AppProcess } from '@worktrack/testing';
import { CpuSampler, formatCpu, type CpuWindow } from './cpu-sampler';
import { drivePosts } from './ingest-load';
import { BATCH, eventsBody, usageBody } from './usage-batches';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 15);
const CONNECTIONS = arg('connections', 8);
const MEMBERS = arg('members', 30);
/** Batches a second in each phase (0: as fast as the connections go): the same paced load makes the phases' CPU per batch comparable. */
const RATE = arg('rate', 6);
const ROUNDS = arg('rounds', 3);
const WARMUP = arg('warmup', 5);
const ONLY = ((i) => (i > 0 ? process.argv[i + 1] : undefined))(process.argv.indexOf('--only'));
const databaseUrl = (): string => process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/worktrack';

async function ensureStack(base: string): Promise<AppProcess[]> {
  const up = await fetch(`${base}/readyz`).then(
    (r) => r.ok,
    () => false,
  );
  if (up) return [];
  console.log(`no stack at ${base}: creating topics, starting identity, ingestion, sessions, correlation and a gateway from dist/`);
  const topics = spawnSync(process.execPath, [join(repoRoot(), 'dist/scripts/create-topics.js')], { stdio: 'inherit' });
  if (topics.status !== 0) throw new Error('topic creation failed');
  const started: AppProcess[] = [];
  try {
    started.push(await startHostedServices(['identity', 'ingestion', 'sessions', 'correlation'], { LOG_LEVEL: 'warn' }, 180_000));
    started.push(await startAppProcess('gateway', { LOG_LEVEL: 'warn', HTTP_PORT: new URL(base).port || '3000' }, 180_000));
    return started;
  } catch (err) {
    await Promise.all(started.map((p) => p.stop()));
    throw err;
  }
}

interface Phase {
  ok: number;
  errors: number;
  rowsPerSecond: number;
  p99: number;
  linkedMs: number;
  cpu: CpuWindow;
}

async function main(): Promise<void> {
  const base = process.env.BENCH_URL ?? 'http://127.0.0.1:3000';
  const started = await ensureStack(base);
  const db = new Client({ connectionString: databaseUrl() });
  await db.connect();
  try {
    const run = randomUUID().slice(0, 6);
    const members = Array.from({ length: MEMBERS }, (_, i) =>
      memberWithToken({ workspace: `bench-usage-${run}`, email: `bench-usage-${i}-${run}@example.com` }),
    );
    const tokens = members.map((m) => m.token);
    const memberIds = members.map((m) => m.memberId);
    const post = async (token: string, method: string, path: string, body: unknown, expected: number): Promise<void> => {
      const send = (): Promise<Response> =>
        fetch(`${base}${path}`, {
          method,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        });
      // A kept-alive socket the gateway closed while the members were being created fails once: send again.
      const res = await send().catch(send);
      if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    };
    for (const token of tokens) await post(token, 'POST', '/v1/sessions', { intent_text: 'bench', source: 'timer' }, 201);
    // The first member of the workspace is its owner (D-14).
    await post(
      tokens[0],
      'PUT',
      '/v1/model-prices',
      {
        prices: [
          { provider: 'anthropic', model_pattern: 'claude-*', effective_from: '2025-01-01T00:00:00Z', input: '1', output: '5' },
          {
            provider: 'anthropic',
            model_pattern: 'claude-sonnet-*',
            effective_from: '2025-01-01T00:00:00Z',
            input: '3',
            output: '15',
            cache_read_input: '0.3',
          },
        ],
      },
      200,
    );

    const sampler = new CpuSampler(new Map(started.map((p) => [p.child.pid ?? -1, p.app])), databaseUrl());
    await sampler.excludeObserver(db);
    const phase = async (path: string, body: (seq: number) => string, table: string, seconds = SECONDS): Promise<Phase> => {
      const cpuWindow = await sampler.start();
      const result = await drivePosts({ url: `${base}${path}`, tokens, connections: CONNECTIONS, seconds, body, rate: RATE }).done;
      const loadEnded = Date.now();
      const unlinked = async (): Promise<number> =>
        Number(
          (
            await db.query<{ n: string }>(
              `SELECT count(*) AS n FROM ingestion.${table} WHERE member_id = ANY($1::uuid[]) AND session_id IS NULL`,
              [memberIds],
            )
          ).rows[0].n,
        );
      let linkedMs = -1;
      while (Date.now() - loadEnded < 60_000) {
        if ((await unlinked()) === 0) {
          linkedMs = Date.now() - loadEnded;
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const cpu = await cpuWindow.end();
      const ok = result['2xx'];
      return {
        ok,
        errors: result.non2xx + result.errors + result.timeouts,
        rowsPerSecond: (ok * BATCH) / (result.duration || seconds),
        p99: result.latency.p99,
        linkedMs,
        cpu,
      };
    };

    const kinds = {
      events: (seconds?: number) => phase('/v1/activity/events', eventsBody, 'activity_events', seconds),
      usage: (seconds?: number) => phase('/v1/usage', usageBody, 'usage_records', seconds),
    } as const;
    type Kind = keyof typeof kinds;
    const chosen: Kind[] = ONLY === 'events' || ONLY === 'usage' ? [ONLY] : ['events', 'usage'];
    // Warm-up: the JIT, the pools and the prepared statements of both paths, unmeasured.
    if (WARMUP > 0) for (const kind of chosen) await kinds[kind](WARMUP);
    const perBatch = (p: Phase): number => p.cpu.totalMs / Math.max(p.ok, 1);
    const ownGroups = ['services', 'gateway'];
    /** The stack's own processes: the apps and the bench database's backends (the broker and Redis are shared). */
    const ownPerBatch = (p: Phase): number =>
      (ownGroups.reduce((a, g) => a + (p.cpu.byGroup[g] ?? 0), 0) + (p.cpu.databaseBackendsMs ?? 0)) / Math.max(p.ok, 1);
    const print = (name: string, p: Phase): void => {
      console.log(
        `  ${name.padEnd(6)} ${p.rowsPerSecond.toFixed(0).padStart(6)} rows/s  p99 ${p.p99} ms  ${p.ok} batches of 202, ${p.errors} errors; all linked ${p.linkedMs} ms after the load (-1: not within 60 s)`,
      );
      console.log(`  cpu over ${p.cpu.seconds.toFixed(1)} s (load and catch-up):`);
      for (const line of formatCpu(p.cpu, p.ok, 'batch')) console.log(`  ${line}`);
    };
    console.log(
      `\nbench:usage (${hostname()}, ${cpus().length} cores, node ${process.version}): ${SECONDS} s a phase, ${CONNECTIONS} connections, ${RATE > 0 ? `${RATE} batches/s` : 'unpaced'}, ${MEMBERS} members, batches of ${BATCH}, ${ROUNDS} rounds after a ${WARMUP} s warm-up of each`,
    );
    const all: Record<Kind, Phase[]> = { events: [], usage: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating order: events first in even rounds, usage first in odd ones.
      const order = round % 2 === 0 ? chosen : [...chosen].reverse();
      const got: Partial<Record<Kind, Phase>> = {};
      console.log(`\nround ${round + 1} (${order.join(', ')}), load average ${loadavg()[0].toFixed(2)}`);
      for (const kind of order) {
        const p = await kinds[kind]();
        got[kind] = p;
        all[kind].push(p);
        print(kind, p);
      }
      if (got.events && got.usage)
        console.log(
          `round ${round + 1}: cpu_ms_per_batch events=${perBatch(got.events).toFixed(2)} usage=${perBatch(got.usage).toFixed(2)} ratio=${(perBatch(got.usage) / perBatch(got.events)).toFixed(2)}; own (apps + bench db) events=${ownPerBatch(got.events).toFixed(2)} usage=${ownPerBatch(got.usage).toFixed(2)} ratio=${(ownPerBatch(got.usage) / ownPerBatch(got.events)).toFixed(2)}`,
        );
    }
    /** Over every round: CPU milliseconds per batch of each group, all rounds' CPU over all rounds' batches. */
    const summed = (ps: Phase[], pick: (p: Phase) => number): number =>
      ps.reduce((a, p) => a + pick(p), 0) /
      Math.max(
        1,
        ps.reduce((a, p) => a + p.ok, 0),
      );
    console.log('\nall rounds (CPU ms per batch, summed over the rounds):');
    const groups = [...new Set(chosen.flatMap((k) => all[k].flatMap((p) => Object.keys(p.cpu.byGroup))))].sort();
    for (const kind of chosen) {
      const ps = all[kind];
      console.log(
        `  ${kind.padEnd(6)} ${groups.map((g) => `${g} ${summed(ps, (p) => p.cpu.byGroup[g] ?? 0).toFixed(2)}`).join('  ')}  (bench db ${summed(ps, (p) => p.cpu.databaseBackendsMs ?? 0).toFixed(2)})  TOTAL ${summed(ps, (p) => p.cpu.totalMs).toFixed(2)}  own ${summed(ps, (p) => ownPerBatch(p) * p.ok).toFixed(2)}`,
      );
    }
    if (chosen.length === 2) {
      const total = (k: Kind): number => summed(all[k], (p) => p.cpu.totalMs);
      const own = (k: Kind): number => summed(all[k], (p) => ownPerBatch(p) * p.ok);
      console.log(
        `cpu_ms_per_batch events=${total('events').toFixed(2)} usage=${total('usage').toFixed(2)} ratio=${(total('usage') / total('events')).toFixed(2)} (usage / events, batches of ${BATCH}, whole stack); own events=${own('events').toFixed(2)} usage=${own('usage').toFixed(2)} ratio=${(own('usage') / own('events')).toFixed(2)} (apps + bench db)`,
      );
    }
  } finally {
    await db.end();
    await Promise.all(started.map((p) => p.stop()));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
