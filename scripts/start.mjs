// `npm start`: the whole system on this machine. Installs what is missing,
// brings up Postgres, Redis and Kafka (scripts/infra.sh), builds, creates the
// topics, runs every service's migrations, starts the six apps, waits until
// they are ready and prints the base URL. Ctrl-C drains every app (SIGTERM)
// and stops the broker it started.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APPS, DEFAULT_PORTS, mainOf } from './apps.mjs';
import { ensureDeps } from './ensure-deps.mjs';

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
const children = new Map();
const colors = [36, 32, 33, 35, 34, 31];
for (const [i, app] of APPS.entries()) {
  const port = app === 'gateway' ? (process.env.PORT ?? DEFAULT_PORTS.gateway) : DEFAULT_PORTS[app];
  const child = spawn(process.execPath, ['--enable-source-maps', mainOf(root, app)], {
    cwd: root,
    env: { ...env, HTTP_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const file = createWriteStream(join(logDir, `${app}.log`), { flags: 'a' });
  const tag = `\x1b[${colors[i % colors.length]}m${app.padEnd(11)}\x1b[0m`;
  const print = (chunk) => {
    file.write(chunk);
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const entry = JSON.parse(line);
        if (entry.msg === 'request' && entry.status < 500) continue; // access log: in the file only
        const extra = entry.requestId ? ` (${entry.requestId})` : '';
        console.log(`${tag} ${entry.level.padEnd(5)} ${entry.msg}${extra}`);
      } catch {
        console.log(`${tag} ${line}`);
      }
    }
  };
  child.stdout.on('data', print);
  child.stderr.on('data', print);
  child.on('exit', (code, signal) => {
    children.delete(app);
    if (!stopping) {
      console.error(`[start] ${app} exited (${code ?? signal}); stopping the system`);
      void stop(1);
    }
  });
  children.set(app, { child, port });
}

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  console.log('\n[start] stopping: draining every app');
  const exits = [...children.values()].map(
    ({ child }) =>
      new Promise((r) => {
        child.once('exit', r);
        child.kill('SIGTERM');
      }),
  );
  await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 20_000))]);
  for (const { child } of children.values()) child.kill('SIGKILL');
  spawnSync('bash', ['scripts/infra.sh', 'down'], { cwd: root, stdio: 'inherit', env });
  console.log('[start] stopped');
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

const deadline = Date.now() + 90_000;
for (const [app, { port }] of children) {
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (stopping) await new Promise(() => {});
    if (Date.now() > deadline) {
      console.error(`[start] ${app} not ready within 90 s; see .infra/logs/${app}.log`);
      await stop(1);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
const base = `http://localhost:${children.get('gateway').port}`;
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
console.log(`
  worktrack is running.
    API base URL   ${base}/v1
    System status  ${base}/status      (every service answers over Kafka from its own Postgres)
    Probes         ${base}/healthz  ${base}/readyz  ${base}/metrics
    Logs           .infra/logs/<app>.log

  Demo member ${memberId} (workspace ${workspaceId}), a full API token:
    export WT_TOKEN=${token}
    curl -s -H "Authorization: Bearer $WT_TOKEN" ${base}/v1/me
  More members: npm run admin -- create-member --workspace <name> --email <email> [--timezone <IANA>] [--role owner|admin|member]

  Ctrl-C stops everything.
`);
