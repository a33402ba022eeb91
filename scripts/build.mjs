// Compiles apps/, libs/ and scripts/ with swc into dist/ (path aliases
// rewritten, decorator metadata on). Tests are not compiled.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
rmSync(join(root, 'dist'), { recursive: true, force: true });
const swc = join(root, 'node_modules', '.bin', 'swc');
const result = spawnSync(
  swc,
  ['apps', 'libs', 'scripts', 'bench', '-d', 'dist', '--quiet', '--ignore', '**/*.spec.ts,**/*.int-spec.ts,**/*.e2e-spec.ts'],
  { cwd: root, stdio: 'inherit' },
);
process.exit(result.status ?? 1);
