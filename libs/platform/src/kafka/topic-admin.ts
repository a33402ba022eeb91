import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigResourceTypes, ConfigSource, type Admin } from 'kafkajs';
import { topicName, type TopicDefinition } from '@worktrack/contracts';

/**
 * Creates the registry's topics that do not exist yet (broker auto-creation is
 * off) and waits for their leaders. Existing topics with fewer partitions get
 * more, and their `retention.ms` / `max.message.bytes` / `cleanup.policy` follow the registry
 * (an upgrade that raises a limit reaches topics created before it); a topic
 * is never shrunk or deleted here.
 */
export async function ensureTopics(admin: Admin, topics: TopicDefinition[], prefix = ''): Promise<string[]> {
  const name = (t: TopicDefinition): string => topicName(t, prefix);
  const existing = new Set(await admin.listTopics());
  const missing = topics.filter((t) => !existing.has(name(t)));
  const present = topics.filter((t) => existing.has(name(t)));
  if (missing.length > 0) {
    await createTopicsTolerant(admin, {
      waitForLeaders: true,
      timeout: 30_000,
      topics: missing.map((t) => ({
        topic: name(t),
        numPartitions: t.partitions,
        replicationFactor: -1,
        configEntries: Object.entries(registryConfig(t)).map(([key, value]) => ({ name: key, value })),
      })),
    });
  }
  if (present.length > 0) {
    const meta = await admin.fetchTopicMetadata({ topics: present.map(name) });
    const grow = present.filter((t) => (meta.topics.find((m) => m.name === name(t))?.partitions.length ?? 0) < t.partitions);
    if (grow.length > 0) await admin.createPartitions({ topicPartitions: grow.map((t) => ({ topic: name(t), count: t.partitions })) });
    await alignConfigs(admin, present, prefix);
  }
  await waitForLeaders(admin, topics.map(name));
  return missing.map(name);
}

const registryConfig = (t: TopicDefinition): Record<string, string> => ({
  'retention.ms': String(t.retentionMs),
  ...(t.maxMessageBytes ? { 'max.message.bytes': String(t.maxMessageBytes) } : {}),
  ...(t.cleanupPolicy ? { 'cleanup.policy': t.cleanupPolicy } : {}),
});

/**
 * Sets the registry's settings on existing topics that differ. AlterConfigs
 * replaces a topic's whole dynamic configuration, so the topic's other
 * per-topic settings (e.g. `min.insync.replicas`) are read and sent back as they are.
 */
async function alignConfigs(admin: Admin, topics: TopicDefinition[], prefix: string): Promise<void> {
  const described = await admin.describeConfigs({
    includeSynonyms: false,
    resources: topics.map((t) => ({ type: ConfigResourceTypes.TOPIC, name: topicName(t, prefix) })),
  });
  const changes = [];
  for (const t of topics) {
    const name = topicName(t, prefix);
    const entries = described.resources.find((r) => r.resourceName === name)?.configEntries ?? [];
    const own = Object.fromEntries(
      entries
        .filter((e) => e.configSource === ConfigSource.TOPIC_CONFIG && e.configValue !== null)
        .map((e) => [e.configName, e.configValue]),
    );
    const wanted = registryConfig(t);
    if (Object.entries(wanted).every(([k, v]) => own[k] === v)) continue;
    changes.push({
      type: ConfigResourceTypes.TOPIC,
      name,
      configEntries: Object.entries({ ...own, ...wanted }).map(([n, value]) => ({ name: n, value })),
    });
  }
  if (changes.length > 0) await admin.alterConfigs({ validateOnly: false, resources: changes });
}

type CreateTopicsArgs = Parameters<Admin['createTopics']>[0];

/**
 * createTopics with waitForLeaders can fail right after creation with
 * "does not host this topic-partition" or "already exists" (another creator
 * won a race); both are fine here because waitForLeaders below polls until
 * every partition has a leader.
 */
async function createTopicsTolerant(admin: Admin, args: CreateTopicsArgs): Promise<void> {
  try {
    await admin.createTopics(args);
  } catch (err) {
    const type = (err as { type?: string }).type ?? '';
    const nested = ((err as { errors?: Array<{ type?: string }> }).errors ?? []).map((e) => e.type ?? '');
    const tolerated = ['UNKNOWN_TOPIC_OR_PARTITION', 'TOPIC_ALREADY_EXISTS', 'LEADER_NOT_AVAILABLE'];
    if (!tolerated.includes(type) && !(nested.length > 0 && nested.every((t) => tolerated.includes(t)))) throw err;
  }
}

/** Polls metadata until every partition of every topic has a leader (kafkajs #815, #1563). */
export async function waitForLeaders(admin: Admin, topics: string[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const meta = await admin.fetchTopicMetadata({ topics });
      const ready = meta.topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0));
      if (ready) return;
    } catch {
      // "unknown topic or partition" right after creation: retry below.
    }
    if (Date.now() > deadline) throw new Error(`Kafka topics have no leader after ${timeoutMs} ms: ${topics.join(', ')}`);
    await sleep(100);
  }
}
