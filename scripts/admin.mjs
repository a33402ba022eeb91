// `npm run admin -- <command> [args]`: operator commands, run with the
// services' own code against the running system's database (D-14).
//   npm run admin -- create-member --workspace <name> --email <email> [--timezone <IANA>]
//                    [--role owner|admin|member] [--capacity <n>] [--kind human|agent]
// Prints what the command prints (create-member: one JSON line).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mainOf } from './apps.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const COMMANDS = { 'create-member': 'identity' };
const [command, ...args] = process.argv.slice(2);
const service = COMMANDS[command];
if (!service) {
  console.error(`usage: npm run admin -- <${Object.keys(COMMANDS).join('|')}> [args]`);
  process.exit(2);
}
const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
if (build.status !== 0) process.exit(build.status ?? 1);
const run = spawnSync(process.execPath, [mainOf(root, service), 'admin', command, ...args], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'error' },
});
process.exit(run.status ?? 1);
