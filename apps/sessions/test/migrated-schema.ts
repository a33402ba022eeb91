import { createServiceDataSource, migrate } from '@worktrack/platform';
import { testConfig } from '@worktrack/testing';
import { sessionsDatabase } from '../src/database/data-source';
import { SessionsConfig } from '../src/sessions.config';

/**
 * Applies the sessions migrations once per run, whichever spec file (jest
 * worker) gets here first: under a Postgres advisory lock, so the apps these
 * files start (MIGRATE_ON_START) find nothing left to create, instead of two
 * of them racing on the same CREATE TABLE.
 */
export async function migratedSessionsSchema(): Promise<void> {
  const config = testConfig(SessionsConfig);
  const dataSource = createServiceDataSource({ ...sessionsDatabase, url: config.DATABASE_URL, poolSize: 2 });
  await dataSource.initialize();
  const lock = dataSource.createQueryRunner();
  try {
    await lock.query(`SELECT pg_advisory_lock(hashtext('worktrack.test-migrate:sessions'))`);
    await migrate(dataSource);
  } finally {
    await lock.query(`SELECT pg_advisory_unlock(hashtext('worktrack.test-migrate:sessions'))`).catch(() => undefined);
    await lock.release();
    await dataSource.destroy();
  }
}
