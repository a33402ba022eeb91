import { Client } from 'pg';
import { ensureDatabase } from '@worktrack/platform';
import { RUN_ENV, runDatabaseName, withDatabase } from './test-run';

/**
 * A database of the spec file's own on the run's server, `<run database>_<name>`:
 * for specs whose apps must not share a schema with another file's instances
 * of the same service (an outbox is relayed by whichever instance holds its
 * lock, to that instance's topic prefix). `drop()` removes it (afterAll).
 * Specs take it with a topic prefix of their own, through `ownNamespace`.
 */
async function ownDatabase(name: string): Promise<{ url: string; drop: () => Promise<void> }> {
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

/**
 * A topic prefix (`<run prefix><name>-it.`) and a database of the spec file's
 * own, as the environment of the services it starts: they then neither take
 * another file's messages nor relay another file's outbox rows to their
 * prefix. `drop()` removes the database (afterAll).
 */
export async function ownNamespace(
  name: string,
): Promise<{ prefix: string; env: { KAFKA_TOPIC_PREFIX: string; DATABASE_URL: string }; drop: () => Promise<void> }> {
  const prefix = `${process.env.KAFKA_TOPIC_PREFIX ?? ''}${name}-it.`;
  const database = await ownDatabase(name);
  return { prefix, env: { KAFKA_TOPIC_PREFIX: prefix, DATABASE_URL: database.url }, drop: database.drop };
}
