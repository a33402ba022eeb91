import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  EventsStored,
  MAX_PAGE_BYTES,
  type EventPageV1,
  type IngestEventsV1,
  type IngestResultV1,
  type ListEventsV1,
  type StoredEventV1,
} from '@worktrack/contracts';
import {
  checkedOutboxPayload,
  currentRequestId,
  failpoint,
  OutboxRelay,
  SignedCursor,
  takeWithinBytes,
  type CursorScope,
} from '@worktrack/platform';
import { eventId } from './event-id';
import { dedupKey, EventsRepository, type NewEventRow } from './events.repository';

/** What `toISOString` gives for years 0000–9999: always a valid strict ISO 8601 instant. */
const CANONICAL_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** An EventsStored reference is under 100 bytes of JSON: this many stay under 1 MB by far. */
const MAX_ROWS_UNCHECKED = 5_000;

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
    @Inject(OutboxRelay) private readonly relay: Pick<OutboxRelay, 'notify'>,
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

    // The message names the new rows only, which the statement learns as it inserts. Its ids are
    // UUIDv7s of ours and its instants toISOString's: the contract (UUID, strict ISO 8601) holds by
    // construction, and the size stays far below the topic's limit, unless an instant left the
    // four-digit years or the batch is huge; then the outbox's own check runs over every row, a
    // superset of what the statement writes.
    if (rows.length > MAX_ROWS_UNCHECKED || !rows.every((r) => CANONICAL_INSTANT.test(r.occurredAt))) {
      checkedOutboxPayload(EventsStored, {
        memberId: actor.memberId,
        workspaceId: actor.workspaceId,
        events: rows.map((r) => ({ eventId: r.id, occurredAt: r.occurredAt })),
      });
    }
    const inserted = await this.events.insertBatchQueued(
      { memberId: actor.memberId, workspaceId: actor.workspaceId, receivedAt, rows },
      {
        topic: EventsStored.topic,
        type: EventsStored.type,
        version: EventsStored.version,
        messageId: randomUUID(),
        requestId: currentRequestId() ?? null,
      },
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
        if (!id) throw new Error('deduplication key vanished during the batch'); // deleted since: the command fails, nothing of it is lost
        if (id !== r.id) duplicates++;
        ids[r.index] = id;
      }
    }
    const stored = inserted.size;
    failpoint('ingestion.after-commit'); // fault tests: die between the commit and the publish
    if (stored > 0) this.relay.notify();
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
    const events: StoredEventV1[] = takeWithinBytes(
      rows.slice(0, limit).map((e) => ({
        eventId: e.id,
        sourceType: e.sourceType,
        eventType: e.eventType,
        occurredAt: e.occurredAt.toISOString(),
        receivedAt: e.receivedAt.toISOString(),
        payload: e.payload,
        externalId: e.externalId,
        sessionId: e.sessionId,
      })),
      MAX_PAGE_BYTES,
      eventBytes,
    );
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
