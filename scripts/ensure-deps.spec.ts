import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const script = join(__dirname, 'ensure-deps.mjs');

/** `depsUpToDate(root)` of scripts/ensure-deps.mjs, run as the ES module it is. */
function upToDate(root: string): boolean {
  const run = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { depsUpToDate } from ${JSON.stringify(script)}; console.log(depsUpToDate(${JSON.stringify(root)}));`,
    ],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`exit ${String(run.status ?? run.signal)}: ${run.stderr}`);
  return run.stdout.trim() === 'true';
}

/** Records the install the way ensureDeps does after a successful install (no npm run here). */
function record(root: string): void {
  const run = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `import { ensureDeps } from ${JSON.stringify(script)}; ensureDeps(${JSON.stringify(root)});`],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(run.stderr);
}

// Each case starts one to three Node processes: on a machine still busy with an install, that takes longer than
// Jest's default 5 s.
jest.setTimeout(60_000);

describe('ensure-deps: when to install', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'wt-deps-'));
    writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('installs when there is no node_modules', () => {
    expect(upToDate(root)).toBe(false);
  });

  it('a checkout with a newer lockfile date but the same content keeps the install it shares (a git worktree)', () => {
    mkdirSync(join(root, 'node_modules'));
    writeFileSync(join(root, 'node_modules', '.package-lock.json'), '{}');
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(root, 'node_modules', '.package-lock.json'), past, past);
    expect(upToDate(root)).toBe(false); // no record yet: the date rule says stale
    utimesSync(join(root, 'node_modules', '.package-lock.json'), new Date(), new Date());
    record(root); // up to date by date: records the lockfile's hash
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'package-lock.json'), future, future); // a fresh checkout: newer date, same content
    expect(upToDate(root)).toBe(true);
  });

  it('installs again when the lockfile content changes', () => {
    mkdirSync(join(root, 'node_modules'));
    writeFileSync(join(root, 'node_modules', '.package-lock.json'), '{}');
    record(root);
    expect(upToDate(root)).toBe(true);
    writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}');
    expect(upToDate(root)).toBe(false);
  });
});
