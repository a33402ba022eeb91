import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { EventsLinked } from '@worktrack/contracts';
import { outboxTarget, queryRows, schemaOf } from '@worktrack/platform';

export interface ChangedLink {
  event_id: string;
  session_id: string | null;
  link_version: number;
}

/** A new event to link (`insertLinkedQueued`). */
export interface NewEvent {
  memberId: string;
  eventId: string;
  occurredAt: string;
}

export interface SessionRow {
  session_id: string;
  started_at: Date;
  closed_at: Date | null;
  revision: number;
}

/**
 * Correlation's tables. Every change for a member runs under that member's
 * transaction-scoped advisory lock, so event batches and session changes
 * (which arrive on different topics) are applied one at a time per member.
 */
@Injectable()
export class LinksRepository {
  private readonly s: string;
  private readonly outbox: { table: string; channel: string };

  constructor(private readonly dataSource: DataSource) {
    this.s = `"${schemaOf(dataSource)}"`;
    this.outbox = outboxTarget(schemaOf(dataSource));
  }

  /** A transaction holding the member's lock. */
  forMember<T>(memberId: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.forMembers([memberId], work);
  }

  /**
   * A transaction holding the locks of several members (issue 17: a fetched
   * batch of event messages in one transaction), taken in the order of their
   * keys, so two such transactions never wait for each other in a cycle.
   */
  forMembers<T>(memberIds: string[], work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      if (memberIds.length === 1) {
        await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`correlation:${memberIds[0]}`]);
      } else {
        await manager.query(
          `SELECT count(pg_advisory_xact_lock(k)) FROM (
             SELECT DISTINCT hashtextextended('correlation:' || m, 0) AS k FROM unnest($1::text[]) AS m ORDER BY k) AS keys`,
          [memberIds],
        );
      }
      return work(manager);
    });
  }

  /**
   * Inserts events not seen before, each already linked by D-31's rule (see
   * `relink`), and writes the links of the new ones that got a session to the
   * outbox as EventsLinked messages (per member, at most `linksPerMessage`
   * links each, keyed by the member id as given): one statement (issue 17)
   * instead of an insert, an update of the same rows and an outbox write, for
   * the events of several members at once (their locks are held, so no
   * session change can come between). The messages hold UUIDs and versions
   * read from the rows, valid by construction; each commit wakes the relay
   * (NOTIFY). Returns how many messages were queued.
   */
  async insertLinkedQueued(
    manager: EntityManager,
    events: NewEvent[],
    outbox: { linksPerMessage: number; requestId: string | null },
  ): Promise<number> {
    const rows = await queryRows<{ messages: number }>(
      manager,
      `WITH target AS (
         SELECT t.id, t.member, t.at,
                (SELECT s.session_id FROM ${this.s}."sessions" s
                  WHERE s.member_id = t.member::uuid AND s.started_at <= t.at
                    AND (s.closed_at IS NULL OR t.at < s.closed_at)
                  ORDER BY s.started_at DESC, s.session_id DESC LIMIT 1) AS linked
           FROM unnest($1::text[], $2::uuid[], $3::timestamptz[]) AS t(member, id, at)
       ),
       inserted AS (
         INSERT INTO ${this.s}."events" (event_id, member_id, occurred_at, session_id, link_version)
         SELECT id, member::uuid, at, linked, CASE WHEN linked IS NULL THEN 0 ELSE 1 END FROM target
         ON CONFLICT DO NOTHING
         RETURNING event_id, session_id, link_version
       ),
       linked AS (
         SELECT t.member, i.event_id, i.session_id, i.link_version,
                (row_number() OVER (PARTITION BY t.member ORDER BY i.event_id) - 1) / $4 AS chunk
           FROM inserted i JOIN target t ON t.id = i.event_id
          WHERE i.session_id IS NOT NULL
       ),
       queued AS (
         INSERT INTO ${this.outbox.table} (topic, key, type, version, message_id, request_id, payload)
         SELECT $5, l.member, $6, $7, gen_random_uuid(), $8,
                jsonb_build_object('memberId', l.member, 'links',
                  jsonb_agg(jsonb_build_object('eventId', l.event_id, 'sessionId', l.session_id, 'version', l.link_version)))
           FROM linked l
          GROUP BY l.member, l.chunk
          ORDER BY l.member, l.chunk
         RETURNING id
       ),
       notified AS (SELECT pg_notify($9, '') FROM (SELECT 1 FROM queued LIMIT 1) AS any_row)
       SELECT (SELECT count(*) FROM queued)::int AS messages, (SELECT count(*) FROM notified)::int AS notified`,
      [
        events.map((e) => e.memberId),
        events.map((e) => e.eventId),
        events.map((e) => e.occurredAt),
        outbox.linksPerMessage,
        EventsLinked.topic,
        EventsLinked.type,
        EventsLinked.version,
        outbox.requestId,
        this.outbox.channel,
      ],
    );
    return rows[0]?.messages ?? 0;
  }

  async session(manager: EntityManager, sessionId: string): Promise<SessionRow | undefined> {
    const rows = await queryRows<SessionRow>(
      manager,
      `SELECT session_id, started_at, closed_at, revision FROM ${this.s}."sessions" WHERE session_id = $1`,
      [sessionId],
    );
    return rows[0];
  }

  async saveSession(
    manager: EntityManager,
    s: { sessionId: string; memberId: string; startedAt: string; closedAt: string | null; revision: number },
  ): Promise<void> {
    await manager.query(
      `INSERT INTO ${this.s}."sessions" (session_id, member_id, started_at, closed_at, revision) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (session_id) DO UPDATE SET started_at = EXCLUDED.started_at, closed_at = EXCLUDED.closed_at, revision = EXCLUDED.revision`,
      [s.sessionId, s.memberId, s.startedAt, s.closedAt, s.revision],
    );
  }

  /**
   * Recomputes the links of a member's events that occurred in [from, to)
   * with D-31's rule: the session whose [started_at, closed_at) contains
   * occurred_at, open-ended while live, the latest started_at winning among
   * overlaps (then the greatest id, so the answer is unique). Updates only
   * links that change; returns them.
   */
  async relink(manager: EntityManager, memberId: string, scope: { from: Date; to: Date | null }): Promise<ChangedLink[]> {
    const params: unknown[] = [memberId, scope.from, scope.to];
    const filter = 'e.occurred_at >= $2::timestamptz AND ($3::timestamptz IS NULL OR e.occurred_at < $3::timestamptz)';
    return queryRows<ChangedLink>(
      manager,
      `WITH target AS (
         SELECT e.event_id,
                (SELECT s.session_id FROM ${this.s}."sessions" s
                  WHERE s.member_id = e.member_id AND s.started_at <= e.occurred_at
                    AND (s.closed_at IS NULL OR e.occurred_at < s.closed_at)
                  ORDER BY s.started_at DESC, s.session_id DESC LIMIT 1) AS linked
           FROM ${this.s}."events" e
          WHERE e.member_id = $1::uuid AND ${filter}
       )
       UPDATE ${this.s}."events" e SET session_id = t.linked, link_version = e.link_version + 1
         FROM target t
        WHERE e.event_id = t.event_id AND e.session_id IS DISTINCT FROM t.linked
       RETURNING e.event_id, e.session_id, e.link_version`,
      params,
    );
  }
}
