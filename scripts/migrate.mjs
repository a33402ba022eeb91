// Applies every service's migrations: the same explicit step a k8s Job runs
// (`node dist/apps/<service>/src/main.js migrate`). Builds first.
//   npm run migrate
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mainOf, SERVICES } from './apps.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!process.argv.includes('--no-build')) {
  const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const results = await Promise.all(
  SERVICES.map(
    (service) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [mainOf(root, service), 'migrate'], { cwd: root, stdio: 'inherit' });
        child.on('exit', (code) => resolve({ service, code }));
      }),
  ),
);
const failed = results.filter((r) => r.code !== 0);
for (const f of failed) console.error(`[migrate] ${f.service}: migrations failed (exit ${f.code})`);
process.exit(failed.length > 0 ? 1 : 0);
