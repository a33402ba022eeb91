// `npm run admin -- <command> [args]`: operator commands, run with the
// services' own code against the running system's database (D-14).
//   npm run admin -- create-member --workspace <name> --email <email> [--timezone <IANA>]
//                    [--role owner|admin|member] [--capacity <n>] [--kind human|agent]
// Prints what the command prints (create-member: one JSON line).
//
// Safe under a running system and in parallel: each call compiles
// into its own private directory (.admin-build/<pid>-<random>) and removes it
// afterwards; dist/, which the running apps were started from, is never
// rebuilt or deleted here.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const COMMANDS = { 'create-member': 'identity' };
const [command, ...args] = process.argv.slice(2);
const service = COMMANDS[command];
if (!service) {
  console.error(`usage: npm run admin -- <${Object.keys(COMMANDS).join('|')}> [args]`);
  process.exit(2);
}
const out = join(root, '.admin-build', `${process.pid}-${randomBytes(4).toString('hex')}`);
const cleanUp = () => rmSync(out, { recursive: true, force: true });
let status = 1;
try {
  const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs'), '--out', out], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (build.status !== 0) {
    status = build.status ?? 1;
  } else {
    const run = spawnSync(process.execPath, [join(out, 'apps', service, 'src', 'main.js'), 'admin', command, ...args], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'error' },
    });
    status = run.status ?? 1;
  }
} finally {
  cleanUp();
}
process.exit(status);
