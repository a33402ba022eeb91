/**
 * Chaos test (not a unit test):
 *
 *   npm run chaos [-- --seed 42 --members 24 --replicas 2 --batch 20 --settle 20 --gap-min 8 --gap-max 20 --think 200]
 *   npm run chaos -- --short      the lean variant (`npm run test:chaos` runs it as a jest suite: e2e/chaos.e2e-spec.ts)
 *
 * A three-node Kafka cluster of its own (scripts/infra.sh, KAFKA_NODES=3 on
 * free ports, torn down at the end), a database and topic prefix of its own
 * on the machine's Postgres and Redis, `--replicas` replicas of every app,
 * load from `--members` members, seeded faults and a rolling restart
 * (bench/chaos/chaos.ts). Prints the seed and the counts; `--report <file>`
 * also writes them as JSON. Exits 1 on any loss, doubling, mislink, capacity
 * violation, 5xx other than 503 or lag.
 */
import { writeFileSync } from 'node:fs';
import { cpus, hostname } from 'node:os';
import { type AppName, chaosFailures, type ChaosOptions, formatReport, runChaos, SHORT_CHAOS } from './chaos/chaos';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const reportAt = process.argv.indexOf('--report');
const reportFile = reportAt > 0 ? process.argv[reportAt + 1] : undefined;
const short = process.argv.includes('--short');
const seed = arg('seed', Math.floor(Math.random() * 2 ** 31));
const apps: AppName[] = ['gateway', 'identity', 'ingestion', 'correlation', 'sessions', 'plate', 'connectors', 'webhooks', 'reporting'];
const t0 = Date.now();
const log = (line: string): void => console.log(`[chaos +${((Date.now() - t0) / 1000).toFixed(1)} s] ${line}`);

const options: ChaosOptions = short
  ? {
      seed,
      replicas: SHORT_CHAOS.replicas,
      members: arg('members', SHORT_CHAOS.members),
      batch: arg('batch', SHORT_CHAOS.batch),
      settleS: arg('settle', SHORT_CHAOS.settleS),
      gapS: [arg('gap-min', SHORT_CHAOS.gapS[0]), arg('gap-max', SHORT_CHAOS.gapS[1])],
      thinkMs: arg('think', SHORT_CHAOS.thinkMs),
      log,
    }
  : {
      seed,
      replicas: Object.fromEntries(apps.map((app) => [app, arg('replicas', 2)])),
      members: arg('members', 24),
      batch: arg('batch', 20),
      settleS: arg('settle', 20),
      gapS: [arg('gap-min', 8), arg('gap-max', 20)],
      thinkMs: arg('think', 200),
      log,
    };

async function main(): Promise<void> {
  console.log(`chaos: seed ${seed} (replay with --seed ${seed}); ${hostname()}, ${cpus().length} cores, node ${process.version}`);
  const report = await runChaos(options);
  console.log(`\n${formatReport(report)}`);
  if (reportFile) writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`);
  const failures = chaosFailures(report);
  if (failures.length > 0) {
    console.error(`\nchaos: FAILED: ${failures.join('; ')}`);
    process.exitCode = 1;
  } else console.log('\nchaos: 0 lost, 0 doubled, no 5xx other than 503, lag back to 0');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
