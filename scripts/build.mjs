// Compiles apps/, libs/ and scripts/ with swc into dist/ (path aliases
// rewritten, decorator metadata on), and bundles the web app (apps/web, Vite)
// into dist/web, which the gateway serves at `/` (D-44). Tests are not compiled.
//   node scripts/build.mjs [--out <dir>]
// --out builds into another directory of this repo instead (it must be inside
// the repo so node_modules resolves); `npm run admin` uses a private one per
// call so it never replaces dist/ under a running system. Such a build has no
// web app (the admin command serves no page, and a bundle costs seconds).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const at = process.argv.indexOf('--out');
const out = at > 0 ? resolve(root, process.argv[at + 1] ?? '') : join(root, 'dist');
if (out === root || relative(root, out).startsWith('..')) {
  console.error(`build: --out must be a directory inside ${root}`);
  process.exit(2);
}
rmSync(out, { recursive: true, force: true });
const swc = join(root, 'node_modules', '.bin', 'swc');
const result = spawnSync(
  swc,
  [
    'apps',
    'libs',
    'scripts',
    'bench',
    '-d',
    relative(root, out),
    '--quiet',
    '--ignore',
    '**/*.spec.ts,**/*.int-spec.ts,**/*.e2e-spec.ts,apps/web/**',
  ],
  { cwd: root, stdio: 'inherit' },
);
if (result.status !== 0 || at > 0) process.exit(result.status ?? 1);
const web = spawnSync(
  join(root, 'node_modules', '.bin', 'vite'),
  ['build', '--config', 'apps/web/vite.config.ts', '--outDir', join(out, 'web'), '--logLevel', 'warn'],
  { cwd: root, stdio: 'inherit' },
);
process.exit(web.status ?? 1);
