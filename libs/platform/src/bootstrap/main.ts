import type { ServiceName } from '@worktrack/contracts';
import type { ServiceConfig } from '../config/base.config';
import { ConfigError, loadConfig } from '../config/load-config';
import { createServiceDataSource, ensureDatabase, migrate, type ServiceDataSourceOptions } from '../database/data-source.factory';
import { createLogger, type AppLogger } from '../logging/logger';
import { drainOnSignals } from './bootstrap';
import { startService, type ServiceAppModule } from './service';

/** A wrong command line: the message is printed as it is, exit code 2. */
export class CommandUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandUsageError';
  }
}

/**
 * Runs an app's main function: configuration problems print one clear message
 * and exit 1 (fail fast); any other start-up failure is logged and exits 1.
 */
export function runMain(app: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    if (err instanceof CommandUsageError || err instanceof ConfigError) {
      process.stderr.write(`${app}: ${err.message}\n`);
    } else {
      process.stderr.write(
        `${JSON.stringify({ level: 'fatal', app, msg: 'start-up failed', err: String(err), stack: (err as Error)?.stack })}\n`,
      );
    }
    process.exit(err instanceof CommandUsageError ? 2 : 1);
  });
}

/** `main.js migrate`: the explicit migration step (a k8s Job, `npm run migrate`). */
export async function runMigrations(
  config: ServiceConfig,
  database: Pick<ServiceDataSourceOptions, 'schema' | 'entities' | 'migrations'>,
  logger: AppLogger,
): Promise<string[]> {
  await ensureDatabase(config.DATABASE_URL);
  const dataSource = createServiceDataSource({
    ...database,
    url: config.DATABASE_URL,
    poolSize: 2,
    applicationName: `migrate.${database.schema}`,
  });
  await dataSource.initialize();
  try {
    const applied = await migrate(dataSource);
    logger.info({ schema: database.schema, applied }, applied.length > 0 ? 'migrations applied' : 'schema up to date');
    return applied;
  } finally {
    await dataSource.destroy();
  }
}

/** What a service's main exports as `service`: what its process runs, and what scripts/services-host.ts loads to host it beside others. */
export interface ServiceEntry<C extends ServiceConfig = ServiceConfig> {
  name: ServiceName;
  appModule: ServiceAppModule<C>;
  config: new () => C;
  database: Pick<ServiceDataSourceOptions, 'schema' | 'entities' | 'migrations'>;
}

/**
 * A service's main: `node main.js` runs the service; `node main.js migrate`
 * applies its migrations and exits; `extra` handles further sub-commands
 * (identity's `admin …`) and returns true when it did.
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
    drainOnSignals(await startService(entry.name, entry.appModule, config, logger), config, logger);
  });
}
