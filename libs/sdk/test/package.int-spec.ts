import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const PACKAGE_DIR = join(ROOT, 'dist', 'sdk');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command; resolves with its exit code and output (a failing exit is for the test to judge). */
const run = (command: string, args: string[], cwd: string): Promise<Run> =>
  new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });

interface PackedFile {
  path: string;
}
interface Packed {
  name: string;
  files: PackedFile[];
}

/**
 * `@worktrack/sdk` is publishable. `npm run build:sdk` builds the
 * package as it would be published (dist/sdk); installed on its own in an
 * empty project — with only its declared dependency beside it, never this
 * repository's other modules — it loads, its declarations type-check under
 * strict TypeScript, and its `worktrack` bin runs.
 */
describe('the @worktrack/sdk package', () => {
  let project: string;
  let installed: string;

  beforeAll(async () => {
    const built = await run('npm', ['run', '--silent', 'build:sdk'], ROOT);
    expect({ code: built.code, output: `${built.stdout}${built.stderr}`.replace(/^npm warn .*\n/gm, '') }).toEqual({ code: 0, output: '' });
    project = mkdtempSync(join(tmpdir(), 'wt-sdk-package-'));
    installed = join(project, 'node_modules', '@worktrack', 'sdk');
    mkdirSync(join(project, 'node_modules', '@worktrack'), { recursive: true });
    // A copy, not a link: a link would let the package resolve this repository's node_modules.
    cpSync(PACKAGE_DIR, installed, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const dependency of Object.keys(manifest.dependencies)) {
      symlinkSync(join(ROOT, 'node_modules', dependency), join(project, 'node_modules', dependency));
    }
  }, 240_000);

  afterAll(() => {
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('packs its modules, declarations, README and the worktrack bin, and no tests', async () => {
    const packed = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], PACKAGE_DIR);
    expect(packed.code).toBe(0);
    const [report] = JSON.parse(packed.stdout) as Packed[];
    const files = report.files.map((f) => f.path);
    expect(report.name).toBe('@worktrack/sdk');
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'index.js',
        'index.d.ts',
        'cli/main.js',
        'generated/openapi.d.ts',
        'generated/request-schemas.js',
      ]),
    );
    expect(files.filter((f) => /\.spec\.|\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      private?: boolean;
    };
    expect(manifest.bin).toEqual({ worktrack: 'cli/main.js' });
    expect(manifest.private).toBeUndefined();
  });

  it('loads on its own, with only its declared dependencies installed', async () => {
    const script = [
      "const sdk = require('@worktrack/sdk');",
      "const client = sdk.createWorktrackClient({ baseUrl: 'https://api.example.com', token: 'wt_abcdefgh_x' });",
      'console.log(JSON.stringify({ exports: Object.keys(sdk).sort(), me: typeof client.me, codes: sdk.ERROR_CODES.length }));',
    ].join('\n');
    const loaded = await run(process.execPath, ['-e', script], project);
    expect({ code: loaded.code, stderr: loaded.stderr }).toEqual({ code: 0, stderr: '' });
    const answer = JSON.parse(loaded.stdout) as { exports: string[]; me: string; codes: number };
    expect(answer.exports).toEqual(
      expect.arrayContaining(['createWorktrackClient', 'WorktrackError', 'REQUEST_SCHEMAS', 'ERROR_CODES', 'paginate', 'items']),
    );
    expect(answer.me).toBe('function');
    expect(answer.codes).toBeGreaterThan(10);
  });

  it("type-checks a user's file against its declarations under strict TypeScript", async () => {
    writeFileSync(
      join(project, 'use.ts'),
      [
        "import { createWorktrackClient, WorktrackError, type ActivityEvent, type Session } from '@worktrack/sdk';",
        "const wt = createWorktrackClient({ baseUrl: 'https://api.example.com', token: 'wt_abcdefgh_x' });",
        "const event: ActivityEvent = { event_type: 'deploy', external_id: 'run-1', payload: { env: 'prod' } };",
        'export async function main(): Promise<string> {',
        '  await wt.reportEvents([event]);',
        "  const session: Session = await wt.startSession({ intent_text: 'ship', source: 'timer' });",
        '  try {',
        '    await wt.pauseSession(session.session_id);',
        '  } catch (err) {',
        "    if (err instanceof WorktrackError && err.code === 'SESSION_STATE_CONFLICT') return err.message;",
        '  }',
        '  for await (const page of wt.sessionPages({ limit: 10 })) return page.data[0]?.intent_text ?? "";',
        "  return '';",
        '}',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          module: 'Node16',
          moduleResolution: 'Node16',
          lib: ['ES2023', 'DOM'],
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        files: ['use.ts'],
      }),
    );
    const checked = await run(process.execPath, [TSC, '-p', join(project, 'tsconfig.json')], project);
    expect({ code: checked.code, output: `${checked.stdout}${checked.stderr}` }).toEqual({ code: 0, output: '' });
  }, 120_000);

  it('runs its worktrack bin', async () => {
    const help = await run(process.execPath, [join(installed, 'cli', 'main.js'), '--help'], project);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: worktrack /m);
    expect(help.stdout).toMatch(/Exit codes:/);
  });
});
