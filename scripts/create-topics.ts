/**
 * Creates every topic of the contracts registry (broker auto-creation is off)
 * and waits for leaders. Idempotent. Reads KAFKA_BROKERS and KAFKA_TOPIC_PREFIX.
 *   npm run topics        (k8s: the topics Job, or Strimzi KafkaTopic manifests)
 */
import { allTopics } from '@worktrack/contracts';
import { AppConfig, createLogger, ensureTopics, KafkaClient, loadConfig, runMain } from '@worktrack/platform';

runMain('topics', async () => {
  const config = loadConfig(AppConfig);
  const logger = createLogger('topics', config.LOG_LEVEL, config.INSTANCE_ID);
  const client = new KafkaClient('topics', config, logger);
  try {
    const created = await ensureTopics(await client.admin(), allTopics(), config.KAFKA_TOPIC_PREFIX);
    logger.info({ created, total: allTopics().length }, created.length > 0 ? 'topics created' : 'topics up to date');
  } finally {
    await client.close();
  }
});
