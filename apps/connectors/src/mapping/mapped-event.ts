/**
 * What a provider mapper produces: ActivityEvents in the ingestion contract's
 * shape (camelCase, like `ActivityEventInputV1`), always with an external_id
 * so redeliveries deduplicate (D-15, D-36). Payloads hold metadata only —
 * ids, counts, URLs, timestamps, harmless titles — never message bodies,
 * commit messages or diffs, descriptions or secrets (D-36).
 */
export interface MappedEvent {
  sourceType: 'github' | 'slack' | 'calendar';
  /** Matches SLUG_PATTERN from @worktrack/contracts, e.g. `pull_request.opened`. */
  eventType: string;
  /** RFC 3339 UTC (`…Z`), never more than 10 minutes ahead of receipt (D-19). */
  occurredAt: string;
  payload: Record<string, unknown>;
  /** At most MAX_EXTERNAL_ID_LENGTH (256) characters. */
  externalId: string;
}

/**
 * `mapped`: events to ingest (possibly several per delivery). `ignored`: a
 * well-formed delivery we acknowledge but do not turn into events (unknown
 * event type, another account's activity, a non-terminal state) — logged with
 * the reason. `invalid`: the body does not have the shape the provider
 * documents for its event type — the delivery is refused with the reason.
 */
export type MappingOutcome =
  { kind: 'mapped'; events: MappedEvent[] } | { kind: 'ignored'; reason: string } | { kind: 'invalid'; reason: string };
