// `npm test`: the whole suite, on a fresh clone too. Installs what is
// missing, then lint (type-aware, zero warnings), type-check, unit tests,
// then brings up the infrastructure (unless DATABASE_URL / KAFKA_BROKERS /
// REDIS_URL name it), builds, and runs the integration and end-to-end tiers
// against real Kafka and Postgres. Stops at the first failing stage.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDeps } from './ensure-deps.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', FORCE_COLOR: process.env.CI ? '0' : '1' };
const bin = (name) => join(root, 'node_modules', '.bin', name);
const results = [];

function stage(name, cmd, args) {
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  results.push(`${r.status === 0 ? 'ok  ' : 'FAIL'} ${name} (${seconds} s)`);
  if (r.status !== 0) {
    console.error(`\n${results.join('\n')}\n\nnpm test: ${name} failed`);
    process.exit(r.status ?? 1);
  }
}

ensureDeps(root);
stage('lint', 'npm', ['run', '--silent', 'lint']);
stage('type-check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
stage('unit tests', bin('jest'), ['-c', 'jest.unit.config.js', '--ci']);
if (!(env.DATABASE_URL && env.KAFKA_BROKERS && env.REDIS_URL)) stage('infrastructure', 'bash', ['scripts/infra.sh', 'up']);
stage('build', process.execPath, ['scripts/build.mjs']);
stage('integration tests', bin('jest'), ['-c', 'jest.int.config.js', '--ci']);
stage('end-to-end tests', bin('jest'), ['-c', 'jest.e2e.config.js', '--ci']);
console.log(`\n${results.join('\n')}\n\nnpm test: all stages passed`);
