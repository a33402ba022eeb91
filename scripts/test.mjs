// `npm test`: the whole suite, on a fresh clone too. Installs what is
// missing (npm packages; Debian's chromium for the browser tests, its promtool for the alert rules), then lint
// (type-aware, zero warnings), type-check, unit tests (Jest, and the web
// app's component tests with Vitest), then brings up the infrastructure
// (unless DATABASE_URL / KAFKA_BROKERS / REDIS_URL name it), builds, and runs the integration and end-to-end tiers
// against real Kafka and Postgres. Stops at the first failing stage.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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

const CHROMIUM = '/usr/bin/chromium';

/** `promtool check rules` checks the alert rules (k8s/observability.spec.ts); Debian ships it in `prometheus`. */
function ensurePromtool() {
  if (spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0) return;
  console.log("installing promtool from Debian's packages (prometheus; the alert rules are checked with it)");
  const run = (args) =>
    process.getuid?.() === 0
      ? spawnSync(args[0], args.slice(1), { stdio: ['ignore', 'ignore', 'inherit'], env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } })
      : spawnSync('sudo', ['-E', ...args], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
  run(['apt-get', 'update', '-qq']);
  const r = run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'prometheus']);
  if (r.status !== 0 || spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status !== 0) {
    console.error('npm test: could not install promtool (apt-get install -y prometheus); the alert rule check needs it');
    process.exit(1);
  }
}

/** The browser tests (the API reference, the web app) drive Debian's chromium; installed as scripts/infra.sh installs Postgres. */
function ensureChromium() {
  if (existsSync(CHROMIUM)) return;
  console.log(`installing chromium from Debian's packages (${CHROMIUM} is missing; the browser tests drive it)`);
  const asRoot = (args) =>
    process.getuid?.() === 0
      ? spawnSync(args[0], args.slice(1), { stdio: ['ignore', 'ignore', 'inherit'], env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } })
      : spawnSync('sudo', ['-E', ...args], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
  asRoot(['apt-get', 'update', '-qq']);
  const r = asRoot(['apt-get', 'install', '-y', '-qq', 'chromium']);
  if (r.status !== 0 || !existsSync(CHROMIUM)) {
    console.error(`npm test: could not install chromium (apt-get install -y chromium); ${CHROMIUM} is needed by the browser tests`);
    process.exit(1);
  }
}

ensureDeps(root);
ensureChromium();
ensurePromtool();
stage('lint', 'npm', ['run', '--silent', 'lint']);
stage('type-check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
stage('type-check (web app)', bin('tsc'), ['-p', 'apps/web/tsconfig.json']);
stage('unit tests', bin('jest'), ['-c', 'jest.unit.config.js', '--ci']);
stage('web component tests', bin('vitest'), ['run', '--config', 'apps/web/vite.config.ts']);
if (!(env.DATABASE_URL && env.KAFKA_BROKERS && env.REDIS_URL)) stage('infrastructure', 'bash', ['scripts/infra.sh', 'up']);
stage('build', process.execPath, ['scripts/build.mjs']);
stage('integration tests', bin('jest'), ['-c', 'jest.int.config.js', '--ci']);
stage('end-to-end tests', bin('jest'), ['-c', 'jest.e2e.config.js', '--ci']);
console.log(`\n${results.join('\n')}\n\nnpm test: all stages passed`);
