import { Client } from 'pg';
import { ensureDatabase } from '@worktrack/platform';
import { RUN_ENV, runDatabaseName, withDatabase } from './test-run';

/**
 * A database of the spec file's own on the run's server, `<run database>_<name>`:
 * for specs whose apps must not share a schema with another file's instances
 * of the same service (an outbox is relayed by whichever instance holds its
 * lock, to that instance's topic prefix). `drop()` removes it (afterAll).
 */
export async function ownDatabase(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const runId = process.env[RUN_ENV.runId];
  const server = process.env[RUN_ENV.serverDatabaseUrl];
  if (!runId || !server) throw new Error('ownDatabase needs the test run of global setup');
  const database = `${runDatabaseName(runId)}_${name}`;
  const url = withDatabase(server, database);
  await ensureDatabase(url);
  const drop = async (): Promise<void> => {
    const client = new Client({ connectionString: withDatabase(server, 'postgres') });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    } finally {
      await client.end();
    }
  };
  return { url, drop };
}
