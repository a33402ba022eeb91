import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { boundPort, createHttpApp, createLogger, Metrics } from '@worktrack/platform';
import { testConfig } from '@worktrack/testing';
import { configureGateway } from '../src/gateway.app';
import { gatewayErrors } from '../src/http/error-envelope';
import { GatewayConfig } from '../src/gateway.config';
import { GatewayModule } from '../src/gateway.module';

const ROOT = join(__dirname, '..', '..', '..');
const CLIENT = join(__dirname, 'openapi-client');
const OPENAPI_TYPESCRIPT = join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** Runs a Node CLI; resolves with its exit code and output (a failing exit is for the test to judge). */
const run = (args: string[], cwd: string): Promise<{ code: number; output: string }> =>
  new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` }),
    );
  });

/**
 * The document as a client generator sees it. openapi-typescript
 * generates types from the served document as a new user would (default
 * options), and `usage.ts` — a batch with a payload object, integer counts,
 * typed path parameters and errors, and what must not compile — type-checks
 * against them under `--strict`, generated file included (no skipLibCheck).
 */
describe('a client generated from GET /openapi.yaml', () => {
  let app: NestFastifyApplication;
  let dir: string;
  let document: string;

  beforeAll(async () => {
    const config = testConfig(GatewayConfig);
    const logger = createLogger('gateway', 'silent', config.INSTANCE_ID);
    const metrics = new Metrics('gateway');
    app = await createHttpApp(GatewayModule.forRoot(config, logger, metrics), {
      config,
      logger,
      metrics,
      errors: gatewayErrors(logger),
      configure: configureGateway,
    });
    document = await (await fetch(`http://127.0.0.1:${boundPort(app)}/openapi.yaml`)).text();
    dir = mkdtempSync(join(tmpdir(), 'worktrack-client-'));
  });

  afterAll(async () => {
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('generates with openapi-typescript and type-checks a usage file under strict TypeScript', async () => {
    writeFileSync(join(dir, 'openapi.yaml'), document);
    const generated = await run([OPENAPI_TYPESCRIPT, 'openapi.yaml', '--output', 'openapi.d.ts'], dir);
    expect(generated).toMatchObject({ code: 0 });
    const types = readFileSync(join(dir, 'openapi.d.ts'), 'utf8');
    // A field typed as an object with no properties would be `Record<string, never>`: no payload could be sent.
    expect(types.match(/\w+\??: Record<string, never>/g) ?? []).toEqual([]);
    expect(types).toMatch(/payload\?: \{\s*\[key: string\]: unknown;\s*\} \| null;/);

    // ./openapi of usage.ts is the generated file: the two folders are one to the compiler.
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          noUnusedLocals: true,
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2023', 'DOM'],
          types: [],
          rootDirs: [CLIENT, dir],
        },
        files: [join(CLIENT, 'usage.ts'), join(dir, 'openapi.d.ts')],
      }),
    );
    const checked = await run([TSC, '-p', join(dir, 'tsconfig.json')], dir);
    expect(checked).toEqual({ code: 0, output: '' });
  }, 180_000);
});
