import type { DataSource } from 'typeorm';
import { createLogger, createServiceDataSource, runMigrations, type ServiceConfig } from '@worktrack/platform';
import { identityDatabase } from '../database/data-source';

/**
 * Runs an admin command against identity's schema the way the service does:
 * migrations first, then a small pool of its own, closed when `work` ends.
 */
export async function withAdminDataSource<T>(config: ServiceConfig, work: (dataSource: DataSource) => Promise<T>): Promise<T> {
  await runMigrations(config, identityDatabase, createLogger('identity-admin', 'error', config.INSTANCE_ID, process.stderr));
  const dataSource = createServiceDataSource({
    ...identityDatabase,
    url: config.DATABASE_URL,
    poolSize: 2,
    applicationName: 'identity.admin',
  });
  await dataSource.initialize();
  try {
    return await work(dataSource);
  } finally {
    await dataSource.destroy();
  }
}
