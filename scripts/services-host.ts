/**
 * ADR 0012 decision 9 (idle): runs the services
 * named by WORKTRACK_SERVICES in this one Node process, as `npm start` does —
 * each its own Nest app with the same modules, topics, consumer groups, schema
 * and migrations as its own process would have, each on its own HTTP port
 * (`<NAME>_HTTP_PORT`, else the service's default) — and drains them all on
 * SIGTERM. Production runs one service per process (its `main.js`).
 *   WORKTRACK_SERVICES=identity,ingestion node dist/scripts/services-host.js
 */
import '@worktrack/platform/tracing'; // first: tracing patches http, fastify, pg and ioredis as they load
import { dirname, join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SERVICE_NAMES, type ServiceName } from '@worktrack/contracts';
import {
  ConfigError,
  createLogger,
  drainOnSignals,
  loadConfig,
  runMain,
  startService,
  type AppLogger,
  type ServiceConfig,
  type ServiceEntry,
} from '@worktrack/platform';

export const HOSTED_SERVICES_ENV = 'WORKTRACK_SERVICES';

/** The services WORKTRACK_SERVICES names, in its order; an unknown or repeated name, or none, is a configuration error (exit 1). */
export function hostedServices(value: string | undefined): ServiceName[] {
  const names = (value ?? '').trim() === '' ? [] : (value ?? '').split(',').map((n) => n.trim());
  const problems = names.length === 0 ? [`${HOSTED_SERVICES_ENV}: must name the services to host (${SERVICE_NAMES.join(', ')})`] : [];
  const seen = new Set<string>();
  for (const name of names) {
    if (!(SERVICE_NAMES as readonly string[]).includes(name)) {
      problems.push(`${HOSTED_SERVICES_ENV}: unknown service ${JSON.stringify(name)} (services: ${SERVICE_NAMES.join(', ')})`);
    } else if (seen.has(name)) {
      problems.push(`${HOSTED_SERVICES_ENV}: ${name} is named twice`);
    }
    seen.add(name);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return names as ServiceName[];
}

/** A hosted service's environment: the process's, with HTTP_PORT from `<NAME>_HTTP_PORT` (or the service's default), so the services do not all bind one port. */
export function hostedEnv(env: NodeJS.ProcessEnv, name: ServiceName): NodeJS.ProcessEnv {
  const own = { ...env };
  delete own.HTTP_PORT;
  const port = env[`${name.toUpperCase()}_HTTP_PORT`];
  if (port !== undefined && port !== '') own.HTTP_PORT = port;
  return own;
}

/** A service's entry from the build beside this script (`dist/apps/<name>/src/main.js` exports `service`): by path, as scripts never import an app. */
function loadServiceEntry(name: ServiceName): ServiceEntry {
  const path = join(dirname(__filename), '..', 'apps', name, 'src', 'main.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- resolved at run time from the build's layout (see above)
  const loaded = require(path) as { service?: ServiceEntry };
  if (!loaded.service || loaded.service.name !== name) throw new Error(`${path} does not export the ${name} service entry`);
  return loaded.service;
}

/**
 * Starts every service (the process metrics — CPU, memory, GC, event loop — in
 * the first one's registry only) and resolves once all are ready; if one
 * cannot start, the ones started are closed and its error is thrown (exit 1).
 */
async function startServices(
  entries: ServiceEntry[],
  env: NodeJS.ProcessEnv,
): Promise<Array<{ app: NestFastifyApplication; config: ServiceConfig; logger: AppLogger }>> {
  const prepared = entries.map((entry) => {
    const config = loadConfig(entry.config, hostedEnv(env, entry.name));
    return { entry, config, logger: createLogger(entry.name, config.LOG_LEVEL, config.INSTANCE_ID) };
  });
  // Nest logs through one logger per process (the last app's): named for the process, not for one service.
  const first = prepared[0].config;
  const nestLogger = createLogger('services', first.LOG_LEVEL, first.INSTANCE_ID);
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

if (require.main === module) {
  runMain('services', async () => {
    const names = hostedServices(process.env[HOSTED_SERVICES_ENV]);
    const started = await startServices(names.map(loadServiceEntry), process.env);
    const { config, logger } = started[0];
    logger.info({ services: names }, 'hosting several services in this process');
    drainOnSignals(
      started.map((s) => s.app),
      config,
      logger,
      started.map((s) => s.logger),
    );
  });
}
