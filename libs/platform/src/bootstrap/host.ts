import { dirname, join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SERVICE_NAMES, type ServiceName } from '@worktrack/contracts';
import type { ServiceConfig } from '../config/base.config';
import { ConfigError, loadConfig } from '../config/load-config';
import { createLogger, type AppLogger } from '../logging/logger';
import { drainOnSignals } from './bootstrap';
import { runMain, runMigrations } from './main';
import type { ServiceDataSourceOptions } from '../database/data-source.factory';
import { startService, type ServiceAppModule } from './service';

/**
 * Issue 17 (ADR 0012, "Several services in one process"): the services one
 * Node process hosts. Unset, a service's main runs that service alone (the
 * image, k8s: one service per pod). `WORKTRACK_SERVICES=identity,ingestion,…`
 * makes the process bootstrap each named service's Nest app — the same
 * modules, topics, consumer groups, schema and migrations as its own process
 * would — each on its own HTTP port (`<NAME>_HTTP_PORT`, else the service's
 * default), and drain them all on SIGTERM.
 */
export const HOSTED_SERVICES_ENV = 'WORKTRACK_SERVICES';

/** What a service's main exports as `service`, so that a host process can start it. */
export interface ServiceEntry<C extends ServiceConfig = ServiceConfig> {
  name: ServiceName;
  appModule: ServiceAppModule<C>;
  config: new () => C;
  database: Pick<ServiceDataSourceOptions, 'schema' | 'entities' | 'migrations'>;
}

/**
 * The services named by WORKTRACK_SERVICES (in the order given), or `own`
 * alone when it is unset. Unknown or repeated names, or a list without the
 * service whose main runs, are configuration errors (the process exits 1).
 */
export function hostedServices(value: string | undefined, own: ServiceName): ServiceName[] {
  if (value === undefined || value.trim() === '') return [own];
  const names = value.split(',').map((n) => n.trim());
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (!(SERVICE_NAMES as readonly string[]).includes(name)) {
      problems.push(`${HOSTED_SERVICES_ENV}: unknown service ${JSON.stringify(name)} (services: ${SERVICE_NAMES.join(', ')})`);
    } else if (seen.has(name)) {
      problems.push(`${HOSTED_SERVICES_ENV}: ${name} is named twice`);
    }
    seen.add(name);
  }
  if (problems.length === 0 && !seen.has(own)) {
    problems.push(`${HOSTED_SERVICES_ENV}: must name ${own}, whose main runs (got ${JSON.stringify(value)})`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return names as ServiceName[];
}

/** The variable that sets a hosted service's HTTP port: `SESSIONS_HTTP_PORT` for sessions. */
export function hostedPortVariable(name: ServiceName): string {
  return `${name.toUpperCase()}_HTTP_PORT`;
}

/**
 * The environment a hosted service's configuration is read from: the
 * process's, with HTTP_PORT taken from `<NAME>_HTTP_PORT` (or left to the
 * service's default) so that the services do not all bind one port.
 */
export function hostedEnv(env: NodeJS.ProcessEnv, name: ServiceName): NodeJS.ProcessEnv {
  const own = { ...env };
  delete own.HTTP_PORT;
  const port = env[hostedPortVariable(name)];
  if (port !== undefined && port !== '') own.HTTP_PORT = port;
  return own;
}

/**
 * Loads another service's entry from the built layout beside this main
 * (`dist/apps/<name>/src/main.js`, which exports `service` and runs only as
 * the entry point). By path, not by import: an app never imports another.
 */
export function loadServiceEntry(name: ServiceName, mainFile: string): ServiceEntry {
  const path = join(dirname(mainFile), '..', '..', name, 'src', 'main.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- resolved at run time from the build's layout (see above)
  const loaded = require(path) as { service?: ServiceEntry };
  if (!loaded.service || loaded.service.name !== name) throw new Error(`${path} does not export the ${name} service entry`);
  return loaded.service;
}

/**
 * Starts the given services in this process: each its own Nest app (probes
 * and metrics on its port, its transport, its pools), the process metrics
 * (CPU, memory, GC, event loop) in the first one's registry only. Resolves
 * once every one is ready; if one cannot start, the ones started are closed
 * and the error is thrown (start-up fails, exit 1).
 */
export async function startServices(
  entries: ServiceEntry[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Array<{ entry: ServiceEntry; app: NestFastifyApplication; config: ServiceConfig; logger: AppLogger }>> {
  const prepared = entries.map((entry) => {
    const config = loadConfig(entry.config, entries.length > 1 ? hostedEnv(env, entry.name) : env);
    return { entry, config, logger: createLogger(entry.name, config.LOG_LEVEL, config.INSTANCE_ID) };
  });
  // Nest logs through one logger per process (the last app's): named for the process, not for one service.
  const first = prepared[0].config;
  const nestLogger = entries.length > 1 ? createLogger('services', first.LOG_LEVEL, first.INSTANCE_ID) : undefined;
  const results = await Promise.allSettled(
    prepared.map(({ entry, config, logger }, i) =>
      startService(entry.name, entry.appModule, config, logger, { processMetrics: i === 0, nestLogger }),
    ),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    const started = results.filter((r): r is PromiseFulfilledResult<NestFastifyApplication> => r.status === 'fulfilled');
    await Promise.allSettled(started.map((r) => r.value.close()));
    throw failed.reason;
  }
  return prepared.map((p, i) => ({ ...p, app: (results[i] as PromiseFulfilledResult<NestFastifyApplication>).value }));
}

/**
 * A service's main: `node main.js` runs the service (or, with
 * WORKTRACK_SERVICES, the services named there, this one among them);
 * `node main.js migrate` applies this service's migrations and exits;
 * `extra` handles further sub-commands (identity's `admin …`) and returns
 * true when it did.
 */
export function runServiceMain<C extends ServiceConfig>(
  entry: ServiceEntry<C>,
  extra?: (argv: string[], config: C, logger: AppLogger) => Promise<boolean>,
): void {
  runMain(entry.name, async () => {
    const config = loadConfig(entry.config);
    const logger = createLogger(entry.name, config.LOG_LEVEL, config.INSTANCE_ID);
    if (process.argv[2] === 'migrate') {
      await runMigrations(config, entry.database, logger);
      return logger.flush();
    }
    if (extra && (await extra(process.argv.slice(2), config, logger))) return;
    const names = hostedServices(process.env[HOSTED_SERVICES_ENV], entry.name);
    const mainFile = require.main?.filename ?? process.argv[1] ?? '';
    const entries = names.map((name) => (name === entry.name ? (entry as unknown as ServiceEntry) : loadServiceEntry(name, mainFile)));
    const started = await startServices(entries);
    if (started.length > 1) logger.info({ services: names }, 'hosting several services in this process');
    drainOnSignals(
      started.map((s) => s.app),
      config,
      logger,
      started.map((s) => s.logger),
    );
  });
}
