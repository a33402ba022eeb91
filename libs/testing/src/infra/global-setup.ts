import { allTopics } from '@worktrack/contracts';
import { AppConfig, createLogger, ensureDatabase, ensureTopics, KafkaClient, loadConfig } from '@worktrack/platform';
import { resolveEndpoints } from './endpoints';
import { newRunId, RUN_ENV, runDatabaseName, runTopicPrefix, withDatabase } from './test-run';

/**
 * Jest global setup for the integration and end-to-end tiers: one broker and
 * one database server per run; the run gets its own database and topic
 * prefix so runs never collide. Workers inherit the environment set here.
 */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const endpoints = await resolveEndpoints();
  const runId = newRunId();
  const databaseUrl = withDatabase(endpoints.databaseUrl, runDatabaseName(runId));
  await ensureDatabase(databaseUrl);

  process.env.NODE_ENV = 'test';
  process.env[RUN_ENV.runId] = runId;
  process.env[RUN_ENV.serverDatabaseUrl] = endpoints.databaseUrl;
  process.env.DATABASE_URL = databaseUrl;
  process.env.KAFKA_BROKERS = endpoints.kafkaBrokers;
  process.env.KAFKA_TOPIC_PREFIX = runTopicPrefix(runId);
  process.env.REDIS_URL = endpoints.redisUrl;
  // Every relay checks each outbox row against its contract (outbox-rows.setup.ts fails a spec file with a violation).
  process.env.OUTBOX_VERIFY_ROWS = 'true';

  const config = loadConfig(AppConfig);
  const client = new KafkaClient('test-setup', config, createLogger('test-setup', 'warn', runId));
  try {
    await ensureTopics(await client.admin(), allTopics(), config.KAFKA_TOPIC_PREFIX);
  } finally {
    await client.close();
  }
  (globalThis as { __wtStopInfra?: () => Promise<void> }).__wtStopInfra = endpoints.stop;
  process.stdout.write(
    `\n[test infra] run ${runId}: postgres ${endpoints.sources.postgres}, kafka ${endpoints.sources.kafka} (${endpoints.kafkaBrokers}), redis ${endpoints.sources.redis}; ready in ${Date.now() - started} ms\n`,
  );
}
