import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventsStored, StoredEventRefV1, type ActorV1, type EventsStoredV1 } from '@worktrack/contracts';
import {
  checkedOutboxPayload,
  currentRequestId,
  currentTraceparent,
  enqueueMany,
  jsonArraySql,
  outboxInsertSql,
  type QueuedMessage,
} from '@worktrack/platform';

/** What `toISOString` gives for years 0000–9999: always a valid strict ISO 8601 instant. */
const CANONICAL_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** An EventsStored reference is under 100 bytes of JSON: this many stay under 1 MB by far. */
const MAX_ROWS_UNCHECKED = 5_000;

/**
 * What the insert statement offers the EventsStored row: SQL expressions of
 * the member and workspace ids, and `fresh`, the rows it inserted as
 * `(id, oc, st, et, n)` — event id, `occurredAt` as given, source and event
 * type, position in the batch.
 */
export interface StoredRefs {
  memberId: string;
  workspaceId: string;
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
  stored(actor: Pick<ActorV1, 'memberId' | 'workspaceId'>, rows: Array<{ id: string; occurredAt: string }>): QueuedMessage<StoredRefs> {
    if (rows.length > MAX_ROWS_UNCHECKED || !rows.every((r) => CANONICAL_INSTANT.test(r.occurredAt))) {
      checkedOutboxPayload(EventsStored, {
        memberId: actor.memberId,
        workspaceId: actor.workspaceId,
        events: rows.map((r) => ({ eventId: r.id, occurredAt: r.occurredAt })),
      });
    }
    return {
      messageId: randomUUID(),
      requestId: currentRequestId() ?? null,
      traceparent: currentTraceparent() ?? null,
      insertSql: storedSql,
    };
  }

  /** EventsStored messages the link audit replays (ADR 0016), each keyed by its member, in the caller's transaction. */
  reannounced(manager: EntityManager, messages: EventsStoredV1[]): Promise<void> {
    return enqueueMany(
      manager,
      EventsStored,
      messages.map((payload) => ({ payload, opts: { key: payload.memberId } })),
    );
  }
}

/** One EventsStored row, keyed by the member, listing the rows of `fresh` in the batch's order; none when `fresh` is empty. */
const storedSql: QueuedMessage<StoredRefs>['insertSql'] = (at) =>
  outboxInsertSql(EventsStored, {
    schema: at.schema,
    key: at.memberId,
    messageId: at.messageId,
    requestId: at.requestId,
    traceparent: at.traceparent,
    payload: {
      memberId: at.memberId,
      workspaceId: at.workspaceId,
      events: jsonArraySql(StoredEventRefV1, { eventId: 'f.id', occurredAt: 'f.oc', sourceType: 'f.st', eventType: 'f.et' }, 'f.n'),
    },
    from: 'FROM fresh f HAVING count(*) > 0',
  });
