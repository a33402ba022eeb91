import { Kafka, logLevel, type Consumer, type ConsumerConfig } from 'kafkajs';
import { AppConfig } from '../config/base.config';
import { loadConfig } from '../config/load-config';
import { createLogger } from '../logging/logger';
import {
  CONSUMER_MAX_WAIT_MS,
  consumerWaits,
  EVENT_CONSUMER_IDLE_WAIT_MS,
  KafkaClient,
  kafkajsLogLevel,
  PRIVATE_GROUP_IDLE_WAIT_MS,
} from './kafka.client';

/** The consumer settings startConsumer asks kafkajs for; the consumer itself never connects. */
async function settingsFor(groupId: string, idleWaitMs?: number): Promise<ConsumerConfig> {
  const config = loadConfig(AppConfig, { INSTANCE_ID: 'gw-1', LOG_LEVEL: 'silent' });
  const client = new KafkaClient('spec', config, createLogger('spec', 'silent', 'gw-1'));
  let seen: ConsumerConfig | undefined;
  const consumer = jest.spyOn(Kafka.prototype, 'consumer').mockImplementation((settings) => {
    seen = settings;
    return {
      events: { CRASH: 'consumer.crash' },
      on: () => () => undefined,
      connect: () => Promise.reject(new Error('no broker in a unit spec')),
    } as unknown as Consumer;
  });
  try {
    await expect(
      client.startConsumer({
        groupId,
        topics: ['t'],
        fromBeginning: false,
        concurrency: 1,
        idleWaitMs,
        eachMessage: () => Promise.resolve(),
      }),
    ).rejects.toThrow('no broker in a unit spec');
  } finally {
    consumer.mockRestore();
  }
  if (!seen) throw new Error('startConsumer created no consumer');
  return seen;
}

describe('KafkaClient consumer waits (ADR 0012 decisions 19 and 27)', () => {
  it('a shared group (commands: replicas join and leave) fetches and heartbeats every second', async () => {
    expect(await settingsFor('sessions')).toMatchObject({
      maxWaitTimeInMs: CONSUMER_MAX_WAIT_MS,
      heartbeatInterval: 1_000,
      sessionTimeout: 6_000,
    });
  });

  it('a group of this replica alone (its replies, its feeds) never rebalances while it runs: every two seconds', async () => {
    expect(PRIVATE_GROUP_IDLE_WAIT_MS).toBe(2_000);
    expect(await settingsFor('gateway.replies.gw-1')).toMatchObject({ maxWaitTimeInMs: 2_000, heartbeatInterval: 2_000 });
    // Another replica's group of the same family is not this one's own.
    expect(await settingsFor('gateway.replies.gw-10')).toMatchObject({ maxWaitTimeInMs: 1_000, heartbeatInterval: 1_000 });
  });

  it('an explicit idle wait wins (event groups, short-lived readers)', async () => {
    expect(await settingsFor('correlation.events', EVENT_CONSUMER_IDLE_WAIT_MS)).toMatchObject({ maxWaitTimeInMs: 2_000 });
    expect(await settingsFor('gateway.replies.gw-1', 100)).toMatchObject({ maxWaitTimeInMs: 100, heartbeatInterval: 100 });
  });

  it('never heartbeats less often than a third of the session timeout', () => {
    expect(consumerWaits(10_000)).toEqual({ heartbeatInterval: 2_000, maxWaitTimeInMs: 2_000 });
  });
});

describe('kafkajs log levels', () => {
  it('shows the retried coordinator and leader elections of a starting broker as debug, not as errors', () => {
    for (const error of [
      'The group coordinator is not available',
      'This is not the correct coordinator for this group',
      "The coordinator is loading and hence can't process requests for this group",
      'There is no leader for this topic-partition as we are in the middle of a leadership election',
    ]) {
      expect(kafkajsLogLevel(logLevel.ERROR, 'Response GroupCoordinator(key: 10, version: 2)', { error, correlationId: 1 })).toBe('debug');
    }
  });

  it('keeps every other error an error, and other levels as they are', () => {
    expect(kafkajsLogLevel(logLevel.ERROR, 'Response Produce(key: 0, version: 7)', { error: 'The request timed out' })).toBe('error');
    expect(
      kafkajsLogLevel(logLevel.ERROR, 'Crash: KafkaJSNumberOfRetriesExceeded', { error: 'The group coordinator is not available' }),
    ).toBe('error');
    expect(kafkajsLogLevel(logLevel.WARN, 'something', {})).toBe('warn');
  });
});
