import { randomUUID } from 'node:crypto';
import { AppConfig, createLogger, KafkaClient, loadConfig } from '../src';

/**
 * Helpers for the platform's own integration tests (they cannot use
 * @worktrack/testing, which builds on this lib). The run's infrastructure
 * comes from the jest global setup through the environment.
 */
export function platformTestClient(name: string, prefix: string): KafkaClient {
  const config = loadConfig(AppConfig, {
    ...process.env,
    KAFKA_TOPIC_PREFIX: prefix,
    INSTANCE_ID: `${name}-${randomUUID().slice(0, 8)}`,
  });
  return new KafkaClient(name, config, createLogger(name, process.env.LOG_LEVEL ?? 'silent', config.INSTANCE_ID));
}

export async function eventually(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
