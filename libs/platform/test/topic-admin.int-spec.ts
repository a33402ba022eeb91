import { randomUUID } from 'node:crypto';
import { ConfigResourceTypes, type Admin } from 'kafkajs';
import { topicName, Topics } from '@worktrack/contracts';
import { ensureTopics, waitForLeaders, type KafkaClient } from '../src';
import { platformTestClient } from './helpers';

/**
 * The topic settings the registry asks for are the broker's, not only the
 * registry's: the member log must really be log-compacted and kept
 * forever, also on a deployment whose topic was created before it was.
 */
describe('ensureTopics on the broker', () => {
  let client: KafkaClient;
  let admin: Admin;
  /** Under the run's prefix, so the run's teardown deletes these topics. */
  const runPrefix = (tag: string): string => `${process.env.KAFKA_TOPIC_PREFIX ?? ''}${tag}${randomUUID().slice(0, 8)}.`;

  beforeAll(async () => {
    client = platformTestClient('topic-admin', runPrefix('topics'));
    admin = await client.admin();
  });

  afterAll(async () => {
    await client?.close();
  });

  const configOf = async (topic: string): Promise<Record<string, string>> => {
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['cleanup.policy', 'retention.ms', 'min.insync.replicas'] }],
    });
    return Object.fromEntries(described.resources[0].configEntries.map((e) => [e.configName, e.configValue]));
  };

  it('creates identity.members log-compacted and kept forever, keyed partitions as registered', async () => {
    const prefix = runPrefix('members');
    const topic = topicName(Topics.identityMembers, prefix);
    expect(await ensureTopics(admin, [Topics.identityMembers], prefix)).toEqual([topic]);
    expect(await configOf(topic)).toMatchObject({ 'cleanup.policy': 'compact', 'retention.ms': '-1' });
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(meta.topics[0].partitions).toHaveLength(Topics.identityMembers.partitions);
  });

  it('turns an existing identity.members created with time-based deletion into a compacted, unbounded log, keeping its other settings', async () => {
    const prefix = runPrefix('older');
    const topic = topicName(Topics.identityMembers, prefix);
    // kafkajs's own waitForLeaders fails on "does not host this topic-partition"
    // while the new topic's metadata propagates (kafkajs #815); poll with ours.
    await admin.createTopics({
      waitForLeaders: false,
      topics: [
        {
          topic,
          numPartitions: Topics.identityMembers.partitions,
          replicationFactor: -1,
          configEntries: [
            { name: 'cleanup.policy', value: 'delete' },
            { name: 'retention.ms', value: String(7 * 24 * 3_600_000) },
            { name: 'min.insync.replicas', value: '1' },
          ],
        },
      ],
    });
    await waitForLeaders(admin, [topic]);
    expect(await ensureTopics(admin, [Topics.identityMembers], prefix)).toEqual([]); // nothing created: it existed
    expect(await configOf(topic)).toMatchObject({ 'cleanup.policy': 'compact', 'retention.ms': '-1', 'min.insync.replicas': '1' });
  });
});
