import { randomUUID } from 'node:crypto';
import { parsePayload, toWire, Topics, type MessageContract } from '@worktrack/contracts';
import { AppConfig, contractHeaders, createLogger, KafkaClient, loadConfig } from '../src';

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

/** Publishes contract messages as another service's outbox relay would, the payloads validated against the contract first. */
export async function publish<T extends object>(
  client: KafkaClient,
  contract: MessageContract<T>,
  messages: Array<{ key: string; payload: T }>,
): Promise<void> {
  await client.send(
    client.topic(Topics[contract.topic]),
    messages.map(({ key, payload }) => {
      const wire = toWire(payload);
      parsePayload(contract.payload, wire.plain, `${contract.type}.v${contract.version}`);
      return { key, value: wire.text, headers: contractHeaders(contract, {}) };
    }),
  );
}
