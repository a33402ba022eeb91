// Installs npm dependencies when node_modules is missing or older than the
// lockfile. Uses `npm ci`; when npm rejects the lockfile only because a
// registry mirror lacks other platforms' optional native packages (the
// "package.json and package-lock.json ... in sync" error), it installs the
// same locked versions with `npm install` instead (the lockfile is unchanged).
//
//   node scripts/ensure-deps.mjs [--force] [npm options…]
// Options other than --force go to npm as they are (the Dockerfile's runtime
// stage: --omit=dev --ignore-scripts), to `npm ci` and to the fallback alike.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function ensureDeps(root, { force = false, npmArgs = [] } = {}) {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (!force && existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  console.log(['[deps] npm ci', ...npmArgs].join(' '));
  const ci = spawnSync('npm', ['ci', '--no-audit', '--no-fund', ...npmArgs], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  if (ci.status === 0) return;
  const stderr = ci.stderr ?? '';
  if (!/can only install packages when your package\.json and package-lock\.json/.test(stderr)) {
    process.stderr.write(stderr);
    throw new Error('npm ci failed');
  }
  console.log(
    '[deps] npm ci refused the lockfile (optional packages of other platforms missing from this registry); npm install with the same lockfile',
  );
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', ...npmArgs], { cwd: root, stdio: 'inherit' });
  if (install.status !== 0) throw new Error('npm install failed');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  ensureDeps(join(import.meta.dirname, '..'), {
    force: args.includes('--force'),
    npmArgs: args.filter((a) => a !== '--force'),
  });
}
