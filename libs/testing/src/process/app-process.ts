import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { repoRoot } from '../infra/endpoints';
import { collectOutput } from './child-output';

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A free port whose successor is free too (a broker's client and controller ports). */
export async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port > 65_000) continue;
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(port + 1, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

export interface AppProcess {
  app: string;
  url: string;
  child: ChildProcess;
  /** Everything the process wrote (JSON log lines), for assertions and failures. */
  output: () => string;
  /** Resolves with the exit code (or signal name) once the process ended. */
  exited: Promise<number | string>;
  /** Sends SIGTERM (drain) and resolves with the exit code. */
  stop: () => Promise<number | string>;
}

export const mainOf = (app: string): string => join(repoRoot(), 'dist', 'apps', app, 'src', 'main.js');
/** Several services in one process (WORKTRACK_SERVICES), as `npm start` runs them. */
export const servicesHostMain = (): string => join(repoRoot(), 'dist', 'scripts', 'services-host.js');

/**
 * Runs an app as its own process from the build (`dist/`, made by
 * `npm run build`), like production does, on a free port, and waits until
 * its /readyz answers 200.
 */
export async function startAppProcess(
  app: string,
  env: Record<string, string> = {},
  readyTimeoutMs = 30_000,
  main = mainOf(app),
): Promise<AppProcess> {
  if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build before the end-to-end tests`);
  const port = env.HTTP_PORT ? Number(env.HTTP_PORT) : await freePort();
  const child = spawn(process.execPath, ['--enable-source-maps', main], {
    cwd: repoRoot(),
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      MIGRATE_ON_START: 'true',
      SHUTDOWN_TIMEOUT_MS: '10000',
      INSTANCE_ID: `${app}-${port}`,
      // Every test file's gateways share Redis and one client address (127.0.0.1), so one file's
      // refused credentials would block another's requests; the per-address limit is tested with
      // addresses of its own (e2e/abuse.e2e-spec.ts sets its limit).
      UNAUTH_RATE_LIMIT_PER_MINUTE: '1000000',
      ...env,
      HTTP_PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { output, closed } = collectOutput(child);
  const exited = closed.then((code) => code ?? child.signalCode ?? -1);
  const url = `http://127.0.0.1:${port}`;
  const handle: AppProcess = {
    app,
    url,
    child,
    output,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode} during start-up:\n${output()}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return handle;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${app} not ready within ${readyTimeoutMs} ms:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Several services in one process (WORKTRACK_SERVICES), as `npm
 * start` runs them (scripts/services-host.ts), each service on a free port of its
 * own (`<NAME>_HTTP_PORT`); waits until every one's /readyz answers 200. The
 * handle's `url` is the first service's; `app` is `services`.
 */
export async function startHostedServices(
  services: readonly string[],
  env: Record<string, string> = {},
  readyTimeoutMs = 60_000,
): Promise<AppProcess & { urls: Record<string, string> }> {
  const ports: Record<string, string> = {};
  for (const s of services) ports[`${s.toUpperCase()}_HTTP_PORT`] = String(await freePort());
  const portOf = (s: string): string => ports[`${s.toUpperCase()}_HTTP_PORT`];
  const urls = Object.fromEntries(services.map((s) => [s, `http://127.0.0.1:${portOf(s)}`]));
  const first = await startAppProcess(
    services[0],
    { ...env, ...ports, WORKTRACK_SERVICES: services.join(','), HTTP_PORT: portOf(services[0]) },
    readyTimeoutMs,
    servicesHostMain(),
  );
  const deadline = Date.now() + readyTimeoutMs;
  for (const s of services.slice(1)) {
    for (;;) {
      const ok = await fetch(`${urls[s]}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (first.child.exitCode !== null || Date.now() > deadline) {
        await first.stop();
        throw new Error(`${s} (hosted with ${services.join(', ')}) not ready within ${readyTimeoutMs} ms:\n${first.output()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { ...first, app: 'services', urls };
}
