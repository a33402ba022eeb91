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
  /** `compact`: the broker keeps the latest message of every key (retention then only bounds deleted keys). Default `delete`. */
  readonly cleanupPolicy?: 'compact';
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
    // A batch of 100 events with 32 KB payloads each (D-17, D-18) is ~3.3 MB; every valid request must fit.
    maxMessageBytes: 8 * 1_048_576,
    description: 'Commands for the ingestion service (request/reply); an event batch of up to 100 × 32 KB payloads travels here.',
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
  webhooksCommands: {
    name: 'webhooks.commands',
    partitions: 6,
    retentionMs: 1 * HOUR,
    description: 'Commands for the webhooks service (request/reply): endpoints, delivery log, replay.',
  },
  reportingCommands: {
    name: 'reporting.commands',
    partitions: 6,
    retentionMs: 1 * HOUR,
    description: 'Commands for the reporting service (request/reply): the reports.',
  },
  identityEvents: {
    name: 'identity.events',
    partitions: 6,
    retentionMs: 7 * DAY,
    description: 'Facts from identity, keyed by member id: members changed, API tokens revoked.',
  },
  identityMembers: {
    name: 'identity.members',
    partitions: 6,
    retentionMs: -1,
    cleanupPolicy: 'compact',
    description: "Every member's latest state, keyed by member id (log-compacted, kept forever): projections rebuild from it.",
  },
  identityTokens: {
    name: 'identity.tokens',
    partitions: 6,
    retentionMs: -1,
    cleanupPolicy: 'compact',
    description:
      "Every API token's verification state, keyed by token id (log-compacted, kept forever): each gateway replica holds the set of token ids in memory and refuses unknown or revoked ones without asking identity (D-37).",
  },
  ingestionEvents: {
    name: 'ingestion.events',
    partitions: 12,
    retentionMs: -1, // kept forever: the reporting projection rebuilds from it (ADR 0018)
    description: 'Activity events stored (one message per accepted batch), keyed by member id; read by correlation.',
  },
  ingestionUsage: {
    name: 'ingestion.usage',
    partitions: 12,
    retentionMs: -1, // kept forever: the reporting projection rebuilds from it (ADR 0018)
    description: 'Usage records stored (one message per accepted batch, D-45 … D-48), keyed by member id; read by correlation and reports.',
  },
  sessionsEvents: {
    name: 'sessions.events',
    partitions: 12,
    retentionMs: -1, // kept forever: the reporting projection rebuilds from it (ADR 0018)
    description: 'Every change to a work session (created, paused, resumed, closed, back-dated, auto-closed), keyed by member id.',
  },
  plateEvents: {
    name: 'plate.events',
    partitions: 6,
    retentionMs: -1, // kept forever: the reporting projection rebuilds from it (ADR 0018)
    description: 'Items put on plates (D-33) and marked done (D-32), keyed by the assignee member id; read by webhooks and reporting.',
  },
  correlationLinks: {
    name: 'correlation.links',
    partitions: 12,
    retentionMs: -1, // kept forever: the reporting projection rebuilds from it (ADR 0018)
    description: 'Links between stored events and sessions (and their changes), keyed by member id; read by ingestion.',
  },
  gatewayReplies: {
    name: 'gateway.replies',
    partitions: 6,
    retentionMs: 1 * HOUR,
    // A year's report summary grouped by member and week for 500 members is ~26,500 rows (~8 MB of JSON), one reply.
    maxMessageBytes: 16 * 1_048_576,
    description: 'Replies to gateway commands; every gateway replica reads all of it (ADR 0002).',
  },
  connectorsReplies: {
    name: 'connectors.replies',
    partitions: 6,
    retentionMs: 1 * HOUR,
    description: 'Replies to the commands the connectors service sends (ingest, verify its credentials); every replica reads all of it.',
  },
  ingestionReplies: {
    name: 'ingestion.replies',
    partitions: 6,
    retentionMs: 1 * HOUR,
    description: "Replies to the commands the ingestion service sends (its link audit's session cover); every replica reads all of it.",
  },
  deadLetters: {
    name: 'platform.dead-letters',
    partitions: 3,
    retentionMs: 30 * DAY,
    // Holds any message of any topic as it was (the largest takes 8 MiB), with the error headers.
    maxMessageBytes: 10 * 1_048_576,
    description: 'Messages a consumer could not handle, with the error (never silently dropped).',
  },
} as const satisfies Record<string, TopicDefinition>;

export type TopicKey = keyof typeof Topics;

export const allTopics = (): TopicDefinition[] => Object.values(Topics);

/** The physical topic name for a deployment prefix (tests use a per-run prefix). */
export function topicName(topic: TopicDefinition, prefix = ''): string {
  return `${prefix}${topic.name}`;
}
