// `npm start`: the whole system on this machine. Installs what is missing,
// brings up Postgres, Redis and Kafka (scripts/infra.sh), builds, creates the
// topics, runs every service's migrations, starts the apps, waits until
// they are ready and prints the base URL. The apps are supervised: one that
// exits is restarted with a backoff and a line saying why, the others keep
// serving; a broker started here that dies is started again. Ctrl-C drains
// every app (SIGTERM) and stops the broker it started.
//
// ADR 0012 decision 9 (idle): the six services run in one Node process
// (scripts/services-host.ts: WORKTRACK_SERVICES, each on its own port) beside the gateway's: two Node
// processes instead of seven on this machine. `npm start -- --process-per-app`
// starts one process per app as in production (k8s: one service per pod).
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { APPS, DEFAULT_PORTS, mainOf, SERVICES, servicesHostOf } from './apps.mjs';
import { ensureDeps } from './ensure-deps.mjs';
import { Supervisor } from './supervisor.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const logDir = join(root, '.infra', 'logs');
const env = { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development', MIGRATE_ON_START: 'false' };

const step = (name, cmd, args) => {
  console.log(`[start] ${name}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env });
  if (r.status !== 0) {
    console.error(`[start] ${name} failed (exit ${r.status})`);
    process.exit(1);
  }
};

ensureDeps(root);
step('infrastructure', 'bash', ['scripts/infra.sh', 'up']);
step('build', process.execPath, ['scripts/build.mjs']);
step('topics', process.execPath, ['dist/scripts/create-topics.js']);
step('migrations', process.execPath, ['scripts/migrate.mjs', '--no-build']);

mkdirSync(logDir, { recursive: true });
let stopping = false;
const supervisor = new Supervisor({ log: (line) => console.error(line) });
const ports = new Map(APPS.map((app) => [app, app === 'gateway' ? (process.env.PORT ?? DEFAULT_PORTS.gateway) : DEFAULT_PORTS[app]]));
const colors = new Map(APPS.map((app, i) => [app, [36, 32, 33, 35, 34, 31, 37][i % 7]]));
const tagOf = (app) => `\x1b[${colors.get(app) ?? 37}m${app.padEnd(11)}\x1b[0m`;
const processPerApp = process.argv.includes('--process-per-app');
// D-40: the web app's own origin, which the refresh cookie answers and session JWTs are issued for.
env.PUBLIC_URL ??= `http://localhost:${ports.get('gateway')}`;
// What each supervised process runs: the gateway, and the six services in one process (or each in its own).
const processes = processPerApp
  ? APPS.map((app) => ({ name: app, main: mainOf(root, app), env: { HTTP_PORT: String(ports.get(app)) } }))
  : [
      { name: 'gateway', main: mainOf(root, 'gateway'), env: { HTTP_PORT: String(ports.get('gateway')) } },
      {
        name: 'services',
        main: servicesHostOf(root),
        env: {
          WORKTRACK_SERVICES: SERVICES.join(','),
          ...Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_HTTP_PORT`, String(ports.get(s))])),
        },
      },
    ];
for (const proc of processes) {
  const file = createWriteStream(join(logDir, `${proc.name}.log`), { flags: 'a' });
  const print = (chunk) => {
    file.write(chunk);
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const entry = JSON.parse(line);
        if (entry.msg === 'request' && entry.status < 500) continue; // access log: in the file only
        const extra = entry.requestId ? ` (${entry.requestId})` : '';
        // A process hosting several services: each line names its service (the JSON's "app").
        console.log(`${tagOf(typeof entry.app === 'string' ? entry.app : proc.name)} ${entry.level.padEnd(5)} ${entry.msg}${extra}`);
      } catch {
        console.log(`${tagOf(proc.name)} ${line}`);
      }
    }
  };
  supervisor.add(proc.name, {
    command: process.execPath,
    // A young generation of up to 64 MiB per semi-space (V8's default: 16): the apps allocate
    // short-lived message objects fast, and the scavenges of a 16 MiB space were 4-7 % of each
    // process's CPU under load, 2.6-4.5 % with 64 (ADR 0012 decision 24). k8s pods
    // keep V8's default: there the memory limit, not the CPU, binds.
    args: ['--max-semi-space-size=64', '--enable-source-maps', proc.main],
    cwd: root,
    env: { ...env, ...proc.env },
    onOutput: print,
  });
}

// The broker infra.sh started (if it did): started again when its process is gone.
const kafkaPort = process.env.KAFKA_PORT ?? '9092';
const kafkaPidFile = join(
  process.env.KAFKA_DIR ?? join(root, '.infra', kafkaPort === '9092' ? 'kafka' : `kafka-${kafkaPort}`),
  'kafka.pid',
);
const brokerIsOurs = existsSync(kafkaPidFile);
let brokerRestarting = false;
const brokerWatch = setInterval(() => {
  if (!brokerIsOurs || brokerRestarting || stopping) return;
  let pid = 0;
  try {
    pid = Number(readFileSync(kafkaPidFile, 'utf8').trim() || 0);
    if (pid > 0) process.kill(pid, 0);
    return;
  } catch {
    // no pid file (stopped) or no such process (gone)
  }
  if (!(pid > 0)) return;
  brokerRestarting = true;
  console.error(`[supervisor] kafka broker (pid ${pid}) is gone; starting it again on the same data`);
  const up = spawn('bash', ['scripts/infra.sh', 'kafka-up'], { cwd: root, env, stdio: 'inherit' });
  up.on('exit', (code) => {
    brokerRestarting = false;
    console.error(code === 0 ? '[supervisor] kafka broker is back' : `[supervisor] kafka restart failed (exit ${code}); trying again`);
  });
}, 2_000);
brokerWatch.unref();

async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  clearInterval(brokerWatch);
  console.log('\n[start] stopping: draining every app');
  await supervisor.stop(20_000);
  spawnSync('bash', ['scripts/infra.sh', 'down'], { cwd: root, stdio: 'inherit', env });
  console.log('[start] stopped');
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

// Waits until every app is ready; one that is slow is reported, not a reason to stop (it is supervised).
const deadline = Date.now() + 90_000;
for (const [app, port] of ports) {
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (stopping) await new Promise(() => {});
    if (Date.now() > deadline) {
      const log = processPerApp || app === 'gateway' ? app : 'services';
      console.error(`[start] ${app} not ready after 90 s (still trying); see .infra/logs/${log}.log`);
      break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
const base = `http://localhost:${ports.get('gateway')}`;
// D-14: a demo member and a full token (the member is created once, a new token each start).
const demo = spawnSync(
  process.execPath,
  [mainOf(root, 'identity'), 'admin', 'create-member', '--workspace', 'demo', '--email', 'demo@worktrack.local', '--timezone', 'UTC'],
  { cwd: root, env: { ...env, LOG_LEVEL: 'error' }, encoding: 'utf8' },
);
if (demo.status !== 0) {
  console.error(`[start] could not create the demo member: ${demo.stderr}`);
  await stop(1);
}
const { token, member_id: memberId, workspace_id: workspaceId } = JSON.parse(demo.stdout.trim());
// D-38: a one-time link that sets the demo member's password and signs them in (none once they have a password).
const invite = spawnSync(
  process.execPath,
  [mainOf(root, 'identity'), 'admin', 'invite', '--workspace', 'demo', '--email', 'demo@worktrack.local'],
  { cwd: root, env: { ...env, LOG_LEVEL: 'error' }, encoding: 'utf8' },
);
const inviteLine =
  invite.status === 0
    ? `  Sign in as the demo member in a browser (the link sets a password; it works once):\n    ${JSON.parse(invite.stdout.trim()).accept_url}`
    : '  The demo member has a password: sign in with it (POST /v1/auth/login).';
console.log(`
  worktrack is running.
    API base URL   ${base}/v1
    System status  ${base}/status      (every service answers over Kafka from its own Postgres)
    Probes         ${base}/healthz  ${base}/readyz  ${base}/metrics
    Logs           .infra/logs/${processPerApp ? '<app>' : '{gateway,services}'}.log

  Demo member ${memberId} (workspace ${workspaceId}), a full API token:
    export WT_TOKEN=${token}
    curl -s -H "Authorization: Bearer $WT_TOKEN" ${base}/v1/me
${inviteLine}
  More members: npm run admin -- create-member --workspace <name> --email <email> [--timezone <IANA>] [--role owner|admin|member]
  Invite people: npm run admin -- invite --workspace <name> --email <email> [--role owner|admin|member]

  A crashed app is restarted (see [supervisor] lines). Ctrl-C stops everything.
`);
