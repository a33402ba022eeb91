/**
 * Benchmark (not a test): what the whole stack burns with no traffic at all.
 *
 *   npm run bench:idle [-- --seconds 30 --settle 10]
 *
 * Uses the running stack at BENCH_URL (default http://127.0.0.1:3000) when it
 * answers (this checkout's app processes are found by their command line and
 * working directory); otherwise starts all seven apps from dist/ on free
 * ports (BENCH_URL's port for the gateway; run `npm run infra:up` first),
 * lets them settle for `settle` seconds (group joins, first fetches), then
 * measures `seconds` of silence: the share of one core each process of the
 * stack used (bench/cpu-sampler.ts), and the total. Target: the
 * whole stack ≤ 3 % of one core. The postgres, broker and redis lines include
 * whatever else on the machine uses them; run it on a quiet machine.
 *
 * The six services run in one process (WORKTRACK_SERVICES) beside the gateway,
 * as `npm start` runs them; `--process-per-app` starts one process per app.
 */
import { spawnSync } from 'node:child_process';
import { cpus, hostname } from 'node:os';
import { join } from 'node:path';
import { repoRoot, startAppProcess, startHostedServices, type AppProcess } from '@worktrack/testing';
import { CpuSampler, formatCpu } from './cpu-sampler';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', 30);
const SETTLE = arg('settle', 10);
const base = new URL(process.env.BENCH_URL ?? 'http://127.0.0.1:3000');
const APPS = ['identity', 'ingestion', 'sessions', 'correlation', 'connectors', 'plate'] as const;
const PROCESS_PER_APP = process.argv.includes('--process-per-app');

async function ensureStack(): Promise<AppProcess[]> {
  const up = await fetch(new URL('/readyz', base)).then(
    (r) => r.ok,
    () => false,
  );
  if (up) return [];
  console.log(
    `no stack at ${base.origin}: creating topics, starting the seven apps from dist/ (${PROCESS_PER_APP ? 'one process per app' : 'the six services in one process'})`,
  );
  const topics = spawnSync(process.execPath, [join(repoRoot(), 'dist/scripts/create-topics.js')], { stdio: 'inherit' });
  if (topics.status !== 0) throw new Error('topic creation failed');
  const started: AppProcess[] = [];
  try {
    if (PROCESS_PER_APP) for (const app of APPS) started.push(await startAppProcess(app, { LOG_LEVEL: 'warn' }));
    else started.push(await startHostedServices(APPS, { LOG_LEVEL: 'warn' }));
    started.push(await startAppProcess('gateway', { LOG_LEVEL: 'warn', HTTP_PORT: base.port || '3000' }));
    return started;
  } catch (err) {
    await Promise.all(started.map((p) => p.stop()));
    throw err;
  }
}

async function main(): Promise<void> {
  const started = await ensureStack();
  try {
    await new Promise((r) => setTimeout(r, SETTLE * 1000));
    const sampler = new CpuSampler(
      new Map(started.map((p) => [p.child.pid ?? -1, p.app])),
      process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/worktrack',
    );
    const window = await sampler.start();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const cpu = await window.end();
    console.log(
      `\nbench:idle (${hostname()}, ${cpus().length} cores, node ${process.version}): ${cpu.seconds.toFixed(1)} s without a request`,
    );
    for (const line of formatCpu(cpu, 0, '')) console.log(line);
    const apps = Object.entries(cpu.byGroup)
      .filter(([g]) => !['postgres', 'kafka', 'redis'].includes(g))
      .reduce((a, [, ms]) => a + ms, 0);
    console.log(
      `stack_cpu_pct_of_core=${((cpu.totalMs / cpu.seconds / 1000) * 100).toFixed(2)} apps_cpu_pct_of_core=${((apps / cpu.seconds / 1000) * 100).toFixed(2)}`,
    );
  } finally {
    await Promise.all(started.map((p) => p.stop()));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
