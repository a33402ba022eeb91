// `npm run worktrack -- <command>`: the `worktrack` CLI (the bin of
// @worktrack/sdk, libs/sdk/src/cli/) from this repository's build. Builds
// dist/ first when the CLI is not built yet.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const main = join(root, 'dist', 'libs', 'sdk', 'src', 'cli', 'main.js');
if (!existsSync(main)) {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) {
    process.stderr.write('worktrack: the build failed (node scripts/build.mjs)\n');
    process.exit(1);
  }
}
const run = spawnSync(process.execPath, [main, ...process.argv.slice(2)], { cwd: process.cwd(), stdio: 'inherit' });
process.exit(run.status ?? 1);
