/**
 * The central topic registry: the only place a topic name is written.
 * Producers, consumers, the topic bootstrap (`npm run topics`), the test
 * harness and the k8s KafkaTopic manifests all read it (a test checks that
 * k8s/ matches this file).
 *
 * Naming: `<owner>.<kind>[.<name>]`. Command topics carry requests that need an
 * answer; replies go to `gateway.replies`; event topics carry facts.
 */
export interface TopicDefinition {
  /** Logical name; a deployment may add a prefix (KAFKA_TOPIC_PREFIX). */
  readonly name: string;
  readonly partitions: number;
  /** Retention in milliseconds; -1 keeps forever. */
  readonly retentionMs: number;
  /** The topic's `max.message.bytes` when it must exceed the broker default (about 1 MB). */
  readonly maxMessageBytes?: number;
  readonly description: string;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const Topics = {
  identityCommands: {
    name: 'identity.commands',
    partitions: 6,
    retentionMs: 1 * HOUR,
    description: 'Commands for the identity service (request/reply).',
  },
  ingestionCommands: {
    name: 'ingestion.commands',
    partitions: 12,
    retentionMs: 1 * HOUR,
    description: 'Commands for the ingestion service (request/reply).',
  },
  correlationCommands: {
    name: 'correlation.commands',
    partitions: 6,
    retentionMs: 1 * HOUR,
    description: 'Commands for the correlation service (request/reply).',
  },
  sessionsCommands: {
    name: 'sessions.commands',
    partitions: 12,
    retentionMs: 1 * HOUR,
    description: 'Commands for the sessions service (request/reply).',
  },
  plateCommands: {
    name: 'plate.commands',
    partitions: 6,
    retentionMs: 1 * HOUR,
    description: 'Commands for the plate service (request/reply).',
  },
  connectorsCommands: {
    name: 'connectors.commands',
    partitions: 6,
    retentionMs: 1 * HOUR,
    maxMessageBytes: 4 * 1_048_576,
    description: 'Commands for the connectors service (request/reply); webhook deliveries of up to 1 MiB travel here.',
  },
  identityEvents: {
    name: 'identity.events',
    partitions: 6,
    retentionMs: 7 * DAY,
    description: 'Facts from identity, keyed by member id: members changed, API tokens revoked.',
  },
  ingestionEvents: {
    name: 'ingestion.events',
    partitions: 12,
    retentionMs: 7 * DAY,
    description: 'Activity events stored (one message per accepted batch), keyed by member id; read by correlation.',
  },
  sessionsEvents: {
    name: 'sessions.events',
    partitions: 12,
    retentionMs: 7 * DAY,
    description: 'Every change to a work session (created, paused, resumed, closed, back-dated, auto-closed), keyed by member id.',
  },
  correlationLinks: {
    name: 'correlation.links',
    partitions: 12,
    retentionMs: 7 * DAY,
    description: 'Links between stored events and sessions (and their changes), keyed by member id; read by ingestion.',
  },
  gatewayReplies: {
    name: 'gateway.replies',
    partitions: 6,
    retentionMs: 1 * HOUR,
    description: 'Replies to gateway commands; every gateway replica reads all of it (ADR 0002).',
  },
  connectorsReplies: {
    name: 'connectors.replies',
    partitions: 6,
    retentionMs: 1 * HOUR,
    description: 'Replies to the commands the connectors service sends (ingest, verify its credentials); every replica reads all of it.',
  },
  deadLetters: {
    name: 'platform.dead-letters',
    partitions: 3,
    retentionMs: 30 * DAY,
    description: 'Messages a consumer could not handle, with the error (never silently dropped).',
  },
} as const satisfies Record<string, TopicDefinition>;

export type TopicKey = keyof typeof Topics;

export const allTopics = (): TopicDefinition[] => Object.values(Topics);

/** The physical topic name for a deployment prefix (tests use a per-run prefix). */
export function topicName(topic: TopicDefinition, prefix = ''): string {
  return `${prefix}${topic.name}`;
}
