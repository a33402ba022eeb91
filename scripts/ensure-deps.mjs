// Installs npm dependencies when node_modules is missing or was installed from
// another lockfile (its content hash, kept in node_modules/.worktrack-deps;
// without that record, node_modules older than the lockfile). A content hash
// rather than a date: a fresh checkout or git worktree sharing an installed
// node_modules has a new lockfile date and the same content. Uses `npm ci`; when npm rejects the lockfile only because a
// registry mirror lacks other platforms' optional native packages (the
// "package.json and package-lock.json ... in sync" error), it installs the
// same locked versions with `npm install` instead (the lockfile is unchanged).
//
//   node scripts/ensure-deps.mjs [--force] [npm options…]
// Options other than --force go to npm as they are (the Dockerfile's runtime
// stage: --omit=dev --ignore-scripts), to `npm ci` and to the fallback alike.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What an install is made of: the lockfile's content and the npm options it was installed with. */
function installKey(root, npmArgs) {
  return createHash('sha256')
    .update(readFileSync(join(root, 'package-lock.json')))
    .update(JSON.stringify(npmArgs))
    .digest('hex');
}

/** True when node_modules holds an install of this lockfile (and options): nothing to do. */
export function depsUpToDate(root, npmArgs = []) {
  const record = join(root, 'node_modules', '.worktrack-deps');
  if (existsSync(record)) return readFileSync(record, 'utf8').trim() === installKey(root, npmArgs);
  const marker = join(root, 'node_modules', '.package-lock.json');
  return existsSync(marker) && statSync(marker).mtimeMs >= statSync(join(root, 'package-lock.json')).mtimeMs;
}

function recordInstall(root, npmArgs) {
  writeFileSync(join(root, 'node_modules', '.worktrack-deps'), `${installKey(root, npmArgs)}\n`);
}

export function ensureDeps(root, { force = false, npmArgs = [] } = {}) {
  if (!force && depsUpToDate(root, npmArgs)) {
    if (!existsSync(join(root, 'node_modules', '.worktrack-deps'))) recordInstall(root, npmArgs);
    return;
  }
  console.log(['[deps] npm ci', ...npmArgs].join(' '));
  const ci = spawnSync('npm', ['ci', '--no-audit', '--no-fund', ...npmArgs], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  if (ci.status === 0) return recordInstall(root, npmArgs);
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
  recordInstall(root, npmArgs);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  ensureDeps(join(import.meta.dirname, '..'), {
    force: args.includes('--force'),
    npmArgs: args.filter((a) => a !== '--force'),
  });
}
