import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { EventsStored, type ActorV1 } from '@worktrack/contracts';
import { checkedOutboxPayload, currentRequestId } from '@worktrack/platform';

/** What `toISOString` gives for years 0000–9999: always a valid strict ISO 8601 instant. */
const CANONICAL_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** An EventsStored reference is under 100 bytes of JSON: this many stay under 1 MB by far. */
const MAX_ROWS_UNCHECKED = 5_000;

/** The outbox row's headers: the insert statement writes the payload from the rows it inserted. */
export interface QueuedMessage {
  topic: string;
  type: string;
  version: number;
  messageId: string;
  requestId: string | null;
}

/**
 * Newly stored events on `ingestion.events`, for correlation, keyed by member
 * id: queued by the statement that stores them (`EventsRepository.insertBatchQueued`,
 * one statement), so published if and only if it commits.
 */
@Injectable()
export class EventsPublisher {
  /**
   * The EventsStored message for a batch. The statement names the new rows only,
   * which it learns as it inserts. Their ids are UUIDs of ours and their instants
   * toISOString's: the contract (UUID, strict ISO 8601) holds by construction and
   * the size stays far below the topic's limit, unless an instant left the
   * four-digit years or the batch is huge; then the contract check runs here over
   * every row, a superset of what the statement writes.
   */
  stored(actor: Pick<ActorV1, 'memberId' | 'workspaceId'>, rows: Array<{ id: string; occurredAt: string }>): QueuedMessage {
    if (rows.length > MAX_ROWS_UNCHECKED || !rows.every((r) => CANONICAL_INSTANT.test(r.occurredAt))) {
      checkedOutboxPayload(EventsStored, {
        memberId: actor.memberId,
        workspaceId: actor.workspaceId,
        events: rows.map((r) => ({ eventId: r.id, occurredAt: r.occurredAt })),
      });
    }
    return {
      topic: EventsStored.topic,
      type: EventsStored.type,
      version: EventsStored.version,
      messageId: randomUUID(),
      requestId: currentRequestId() ?? null,
    };
  }
}
