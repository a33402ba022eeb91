import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { outboxNotifySql, queryRows, schemaOf, type QueuedMessage } from '@worktrack/platform';
import { ActivityEventEntity } from './entities/activity-event.entity';
import type { StoredRefs } from './events.publisher';

export interface NewEventRow {
  id: string;
  sourceType: string;
  eventType: string;
  occurredAt: string;
  payload: string; // JSON text
  externalId: string | null;
}

export interface TimelineQuery {
  memberId: string;
  workspaceId: string;
  from?: string;
  to?: string;
  sourceType?: string;
  eventType?: string;
  sessionId?: string;
  /** Keyset: rows strictly before (occurred_at, id). */
  before?: { occurredAt: string; id: string };
  limit: number;
}

interface TimelineRow {
  id: string;
  source_type: string;
  event_type: string;
  occurred_at: Date;
  received_at: Date;
  payload: Record<string, unknown>;
  external_id: string | null;
  session_id: string | null;
}

/** Activity events of the ingestion schema: one statement per batch (its outbox message included), keyset reads. */
@Injectable()
export class EventsRepository {
  private readonly table: string;

  constructor(private readonly dataSource: DataSource) {
    this.table = `"${schemaOf(dataSource)}"."activity_events"`;
  }

  /**
   * Inserts a member's batch and, when any row is new, the EventsStored
   * message of the new rows into the outbox, in one statement (one
   * round trip and one commit instead of BEGIN, INSERT, outbox, COMMIT; a
   * statement is atomic on its own, so the message exists if and only if the
   * rows it names were stored). Rows whose id or D-15 key exists already are
   * skipped; a concurrent transaction holding the same key makes this one
   * wait for it, so the first write wins. The message's INSERT is the
   * publisher's, built from the EventsStored contract over `fresh` (the new
   * rows in the batch's order); its commit wakes the relay (NOTIFY). Returns
   * the ids actually inserted.
   */
  async insertBatchQueued(
    batch: { memberId: string; workspaceId: string; receivedAt: string; rows: NewEventRow[] },
    message: QueuedMessage<StoredRefs>,
  ): Promise<Set<string>> {
    const { rows } = batch;
    const schema = schemaOf(this.dataSource);
    const inserted = await queryRows<{ id: string }>(
      this.dataSource,
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
                  WITH ORDINALITY AS t(id, st, et, oc, pl, ex, n)
       ),
       inserted AS (
         INSERT INTO ${this.table} (id, workspace_id, member_id, source_type, event_type, occurred_at, received_at, payload, external_id)
         SELECT id, $2::uuid, $3::uuid, st, et, oc::timestamptz, $4::timestamptz, pl::jsonb, ex FROM input
         ON CONFLICT DO NOTHING
         RETURNING id
       ),
       fresh AS (SELECT i.id, i.oc, i.st, i.et, i.n FROM input i JOIN inserted USING (id)),
       queued AS (
         ${message.insertSql({ schema, messageId: '$10::uuid', requestId: '$11::text', memberId: '$12::text', workspaceId: '$13::text', traceparent: '$14::text' })}
       )
       SELECT f.id, (SELECT ${outboxNotifySql(schema)} FROM queued) AS notified FROM fresh f`,
      [
        rows.map((r) => r.id),
        batch.workspaceId,
        batch.memberId,
        batch.receivedAt,
        rows.map((r) => r.sourceType),
        rows.map((r) => r.eventType),
        rows.map((r) => r.occurredAt),
        rows.map((r) => r.payload),
        rows.map((r) => r.externalId),
        message.messageId,
        message.requestId,
        batch.memberId,
        batch.workspaceId,
        message.traceparent ?? null,
      ],
    );
    return new Set(inserted.map((r) => r.id));
  }

  /** The stored ids of a member's D-15 keys. */
  async idsByKeys(memberId: string, keys: Array<{ sourceType: string; externalId: string }>): Promise<Map<string, string>> {
    const rows = await this.dataSource.query<Array<{ id: string; source_type: string; external_id: string }>>(
      `SELECT e.id, e.source_type, e.external_id
         FROM ${this.table} e
         JOIN unnest($2::text[], $3::text[]) AS k(st, ex) ON e.source_type = k.st AND e.external_id = k.ex
        WHERE e.member_id = $1::uuid`,
      [memberId, keys.map((k) => k.sourceType), keys.map((k) => k.externalId)],
    );
    return new Map(rows.map((r) => [dedupKey(r.source_type, r.external_id), r.id]));
  }

  /**
   * Applies correlation's links that are newer than the ones held; returns
   * what changed. One statement for the links of several members;
   * at most one link per event (the caller keeps the newest).
   */
  async applyLinks(
    links: Array<{ memberId: string; eventId: string; sessionId: string | null; version: number }>,
  ): Promise<Array<{ received_at: Date; link_version: number }>> {
    return queryRows(
      this.dataSource,
      `UPDATE ${this.table} e SET session_id = t.sid, link_version = t.v
         FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[]) AS t(mid, id, sid, v)
        WHERE e.id = t.id AND e.member_id = t.mid AND e.link_version < t.v
       RETURNING e.received_at, e.link_version`,
      [links.map((l) => l.memberId), links.map((l) => l.eventId), links.map((l) => l.sessionId), links.map((l) => l.version)],
    );
  }

  async timeline(q: TimelineQuery): Promise<ActivityEventEntity[]> {
    const where = ['member_id = $1', 'workspace_id = $2'];
    const params: unknown[] = [q.memberId, q.workspaceId];
    const add = (sql: (n: number) => string, value: unknown): void => {
      params.push(value);
      where.push(sql(params.length));
    };
    if (q.from) add((n) => `occurred_at >= $${n}::timestamptz`, q.from);
    if (q.to) add((n) => `occurred_at < $${n}::timestamptz`, q.to);
    if (q.sourceType) add((n) => `source_type = $${n}`, q.sourceType);
    if (q.eventType) add((n) => `event_type = $${n}`, q.eventType);
    if (q.sessionId) add((n) => `session_id = $${n}::uuid`, q.sessionId);
    if (q.before) {
      params.push(q.before.occurredAt, q.before.id);
      where.push(`(occurred_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(q.limit);
    const rows = await this.dataSource.query<TimelineRow[]>(
      `SELECT id, source_type, event_type, occurred_at, received_at, payload, external_id, session_id
         FROM ${this.table}
        WHERE ${where.join(' AND ')}
        ORDER BY occurred_at DESC, id DESC
        LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) =>
      Object.assign(new ActivityEventEntity(), {
        id: r.id,
        sourceType: r.source_type,
        eventType: r.event_type,
        occurredAt: r.occurred_at,
        receivedAt: r.received_at,
        payload: r.payload,
        externalId: r.external_id,
        sessionId: r.session_id,
      }),
    );
  }
}

export const dedupKey = (sourceType: string, externalId: string): string => `${sourceType}\u0000${externalId}`;
