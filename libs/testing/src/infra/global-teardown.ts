import { Client } from 'pg';
import { AppConfig, createLogger, KafkaClient, loadConfig } from '@worktrack/platform';
import { RUN_ENV, runDatabaseName, withDatabase } from './test-run';

/** Drops the run's database, topics and consumer groups (WT_KEEP_TEST_DATA=1 keeps them). */
export default async function globalTeardown(): Promise<void> {
  const runId = process.env[RUN_ENV.runId];
  const server = process.env[RUN_ENV.serverDatabaseUrl];
  try {
    if (!runId || !server || process.env.WT_KEEP_TEST_DATA === '1') return;
    const client = new Client({ connectionString: withDatabase(server, 'postgres') });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS "${runDatabaseName(runId)}" WITH (FORCE)`);
    } finally {
      await client.end();
    }
    const config = loadConfig(AppConfig);
    const kafka = new KafkaClient('test-teardown', config, createLogger('test-teardown', 'error', runId));
    try {
      const admin = await kafka.admin();
      const topics = (await admin.listTopics()).filter((t) => t.startsWith(config.KAFKA_TOPIC_PREFIX));
      const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(config.KAFKA_TOPIC_PREFIX));
      if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
      if (topics.length > 0) await admin.deleteTopics({ topics });
    } finally {
      await kafka.close();
    }
  } finally {
    await (globalThis as { __wtStopInfra?: () => Promise<void> }).__wtStopInfra?.();
  }
}
