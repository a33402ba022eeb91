import { Injectable } from '@nestjs/common';
import {
  ErrorCode,
  MAX_PAGE_BYTES,
  type EventPageV1,
  type IngestEventsV1,
  type IngestResultV1,
  type ListEventsV1,
  type StoredEventV1,
} from '@worktrack/contracts';
import { DomainError, SignedCursor, takeWithinBytes, TRANSIENT_MESSAGE, type CursorScope } from '@worktrack/platform';
import { eventId } from './event-id';
import { toStoredEventV1 } from './event.mapper';
import { EventsPublisher } from './events.publisher';
import { dedupKey, EventsRepository, type NewEventRow } from './events.repository';
import { failpoint } from './failpoint';

/**
 * D-15 … D-21: stores a member's batch all-or-nothing, deduplicates on
 * (member, source_type, external_id) within the batch, across requests and
 * across concurrent requests (first write wins), answers only after the
 * commit, and hands the new events to correlation through the outbox.
 */
@Injectable()
export class EventsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly publisher: EventsPublisher,
    private readonly cursors: SignedCursor,
  ) {}

  async ingest(command: IngestEventsV1, messageId: string): Promise<IngestResultV1> {
    const { actor, events, receivedAt } = command;
    const receivedAtMs = Date.parse(receivedAt);
    const ids: string[] = events.map((_, i) => eventId(receivedAtMs, messageId, i));
    const firstOfKey = new Map<string, number>();
    let duplicates = 0;
    const rows: Array<NewEventRow & { index: number }> = [];
    events.forEach((e, index) => {
      if (e.externalId !== undefined && e.externalId !== null) {
        const key = dedupKey(e.sourceType, e.externalId);
        const first = firstOfKey.get(key);
        if (first !== undefined) {
          ids[index] = ids[first]; // D-15: a duplicate within the batch holds the first one's id
          duplicates++;
          return;
        }
        firstOfKey.set(key, index);
      }
      rows.push({
        index,
        id: ids[index],
        sourceType: e.sourceType,
        eventType: e.eventType,
        occurredAt: new Date(e.occurredAt).toISOString(), // millisecond precision, UTC
        payload: JSON.stringify(e.payload),
        externalId: e.externalId ?? null,
      });
    });

    const inserted = await this.events.insertBatchQueued(
      { memberId: actor.memberId, workspaceId: actor.workspaceId, receivedAt, rows },
      this.publisher.stored(actor, rows),
    );
    // A row not inserted either lost its D-15 key to an earlier write (it takes that event's id),
    // or was stored by an earlier delivery of this same command (same id: nothing to do). The
    // earlier write has committed (the insert waited for it), so it is read after ours.
    const lost = rows.filter((r) => !inserted.has(r.id) && r.externalId !== null);
    if (lost.length > 0) {
      const existing = await this.events.idsByKeys(
        actor.memberId,
        lost.map((r) => ({ sourceType: r.sourceType, externalId: r.externalId as string })),
      );
      for (const r of lost) {
        const id = existing.get(dedupKey(r.sourceType, r.externalId as string));
        // Deleted since: the client retries with the same key (D-2); nothing of the batch is lost.
        if (!id) throw new DomainError(ErrorCode.UNAVAILABLE, TRANSIENT_MESSAGE);
        if (id !== r.id) duplicates++;
        ids[r.index] = id;
      }
    }
    failpoint('ingestion.after-commit'); // fault tests: die between the commit and the publish
    // Duplicates propagate their first event's final id (which may be an earlier request's).
    events.forEach((e, i) => {
      if (e.externalId !== undefined && e.externalId !== null) ids[i] = ids[firstOfKey.get(dedupKey(e.sourceType, e.externalId)) as number];
    });
    return { accepted: events.length - duplicates, deduplicated: duplicates, eventIds: ids };
  }

  async list(query: ListEventsV1): Promise<EventPageV1> {
    const { actor, limit, cursor, ...filters } = query;
    const scope: CursorScope = { list: 'activity.events', owner: actor.memberId, filters };
    const before = cursor ? this.cursors.decode(cursor, scope) : undefined;
    const rows = await this.events.timeline({
      memberId: actor.memberId,
      workspaceId: actor.workspaceId,
      ...filters,
      before: before ? { occurredAt: String(before[0]), id: String(before[1]) } : undefined,
      limit: limit + 1,
    });
    const events: StoredEventV1[] = takeWithinBytes(rows.slice(0, limit).map(toStoredEventV1), MAX_PAGE_BYTES, eventBytes);
    const last = events[events.length - 1];
    return {
      events,
      nextCursor: rows.length > events.length && last ? this.cursors.encode([last.occurredAt, last.eventId], scope) : null,
    };
  }
}

/** An event's share of a reply: its payload as JSON plus its other fields (bounded strings), generously. */
const eventBytes = (e: StoredEventV1): number =>
  Buffer.byteLength(JSON.stringify(e.payload)) +
  Buffer.byteLength(e.eventType) +
  Buffer.byteLength(e.externalId ?? '') +
  Buffer.byteLength(e.sourceType) +
  256;
