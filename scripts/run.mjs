// Runs a TypeScript script of this repo: builds with swc, then runs the
// compiled file. Usage: node scripts/run.mjs scripts/create-topics.ts [args]
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [file, ...args] = process.argv.slice(2);
if (!file?.endsWith('.ts')) {
  console.error('usage: node scripts/run.mjs <file.ts> [args]');
  process.exit(2);
}
const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const run = spawnSync(process.execPath, ['--enable-source-maps', join(root, 'dist', file.replace(/\.ts$/, '.js')), ...args], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
