import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { currentTraceparent, queryPrepared, queryRows, schemaOf } from '@worktrack/platform';

export interface ChangedLink {
  event_id: string;
  session_id: string | null;
  link_version: number;
}

/** A new event to link (`linkEvents`). */
export interface NewEvent {
  memberId: string;
  eventId: string;
  occurredAt: string;
}

/** A session of a member's cover (`sessionsCovering`). */
export interface CoverRow {
  member_id: string;
  session_id: string;
  started_at: Date;
  closed_at: Date | null;
}

/** The current link of a held event (`currentLinks`). */
export interface HeldLink extends ChangedLink {
  member_id: string;
}

/**
 * Correlation's tables. Every change for a member runs under that member's
 * transaction-scoped advisory lock, so event batches and session changes
 * (which arrive on different topics) are applied one at a time per member.
 */
@Injectable()
export class LinksRepository {
  private readonly s: string;

  constructor(private readonly dataSource: DataSource) {
    this.s = `"${schemaOf(dataSource)}"`;
  }

  /**
   * A transaction holding the locks of several members (a fetched
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
   * `applySessionChange`), and writes the links of the new ones that got a
   * session to the outbox as EventsLinked messages (per member, at most
   * `linksPerMessage` links each, keyed by the member id as given), under
   * the locks of all their members: one call (ADR 0012 decision
   * 20) to `correlation.link_events` (migration 1767000000005), autocommitted
   * on its own, or in the transaction of `manager` when given (its locks are
   * then held already). The messages hold UUIDs and versions read from the
   * rows, valid by construction; a commit that queued any wakes the relay
   * (NOTIFY). Returns how many messages were queued.
   */
  async linkEvents(
    events: NewEvent[],
    outbox: { linksPerMessage: number; requestId: string | null },
    manager?: EntityManager,
  ): Promise<number> {
    const sql = `SELECT ${this.s}.link_events($1::text[], $2::uuid[], $3::timestamptz[], $4, $5, $6) AS messages`;
    const params = [
      events.map((e) => e.memberId),
      events.map((e) => e.eventId),
      events.map((e) => e.occurredAt),
      ...this.linksOutbox(outbox),
    ];
    const rows = manager
      ? await queryRows<{ messages: number }>(manager, sql, params)
      : await queryPrepared<{ messages: number }>(this.dataSource, sql, params);
    return rows[0]?.messages ?? 0;
  }

  /**
   * D-48: usage records without a session of their own, linked as
   * `linkEvents` links events (same locks, same rule, one autocommitted call
   * to `correlation.link_usage`, migration 1767000000005), their links queued
   * as UsageLinked messages. Returns how many messages were queued.
   */
  async linkUsage(records: NewEvent[], outbox: { linksPerMessage: number; requestId: string | null }): Promise<number> {
    const rows = await queryPrepared<{ messages: number }>(
      this.dataSource,
      `SELECT ${this.s}.link_usage($1::text[], $2::uuid[], $3::timestamptz[], $4, $5, $6) AS messages`,
      [records.map((e) => e.memberId), records.map((e) => e.eventId), records.map((e) => e.occurredAt), ...this.linksOutbox(outbox)],
    );
    return rows[0]?.messages ?? 0;
  }

  /**
   * Applies a session change in one autocommitted round trip (ADR
   * 0012 decision 16): `correlation.apply_session_change` (migration
   * 1767000000005) takes the member's lock, ignores a stale or repeated
   * revision, stores the interval, relinks by D-31's rule the events and
   * usage records that occurred in the old or new interval (the session
   * whose [started_at, closed_at) contains occurred_at, open-ended while
   * live, the latest started_at winning among overlaps, then the greatest
   * id), and queues the changed links as EventsLinked messages, those of
   * usage records (D-48) as UsageLinked. Returns how many links changed, or -1 when the change was
   * stale or repeated.
   */
  async applySessionChange(
    change: { sessionId: string; memberId: string; startedAt: string; closedAt: string | null; revision: number },
    outbox: { linksPerMessage: number; requestId: string | null },
  ): Promise<number> {
    const rows = await queryPrepared<{ changed: number }>(
      this.dataSource,
      `SELECT ${this.s}.apply_session_change($1, $2, $3, $4, $5, $6, $7, $8, $9) AS changed`,
      [change.sessionId, change.memberId, change.startedAt, change.closedAt, change.revision, change.memberId, ...this.linksOutbox(outbox)],
    );
    return rows[0]?.changed ?? 0;
  }

  /**
   * The functions' last three arguments: how many links an EventsLinked
   * message holds, and the request id and `traceparent` of its rows (the
   * consumer's span, so the link applied downstream is a span linked to it).
   */
  private linksOutbox(outbox: { linksPerMessage: number; requestId: string | null }): unknown[] {
    return [outbox.linksPerMessage, outbox.requestId, currentTraceparent() ?? null];
  }

  /**
   * Per member range, the sessions overlapping it (`started_at <= to`, open or
   * `closed_at > from`) in `started_at` then id order, at most `limit` each:
   * one statement over the (member_id, started_at) index.
   */
  sessionsCovering(ranges: Array<{ memberId: string; from: string; to: string }>, limit: number): Promise<CoverRow[]> {
    return queryRows<CoverRow>(
      this.dataSource,
      `SELECT r.member_id, s.session_id, s.started_at, s.closed_at
         FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[]) WITH ORDINALITY AS r(member_id, f, t, n)
         CROSS JOIN LATERAL (
           SELECT s.session_id, s.started_at, s.closed_at FROM ${this.s}."sessions" s
            WHERE s.member_id = r.member_id AND s.started_at <= r.t AND (s.closed_at IS NULL OR s.closed_at > r.f)
            ORDER BY s.started_at, s.session_id
            LIMIT $4) AS s
        ORDER BY r.n, s.started_at, s.session_id`,
      [ranges.map((r) => r.memberId), ranges.map((r) => r.from), ranges.map((r) => r.to), limit],
    );
  }

  /**
   * For events announced again (a replayed EventsStored): the current link of
   * those held, for publishing again, so that a link ingestion never applied
   * reaches it (its versioned apply ignores what it has). A held link that
   * D-31's rule (see `applySessionChange`) no longer gives is corrected first, with a new
   * version. Events never linked (version 0, no session) have nothing to
   * send; events not held are left to `linkEvents`.
   */
  async currentLinks(manager: EntityManager, events: Array<{ memberId: string; eventId: string }>): Promise<HeldLink[]> {
    return queryRows<HeldLink>(
      manager,
      `WITH target AS (
         SELECT e.event_id, e.member_id, e.session_id, e.link_version,
                (SELECT s.session_id FROM ${this.s}."sessions" s
                  WHERE s.member_id = e.member_id AND s.started_at <= e.occurred_at
                    AND (s.closed_at IS NULL OR e.occurred_at < s.closed_at)
                  ORDER BY s.started_at DESC, s.session_id DESC LIMIT 1) AS linked
           FROM unnest($1::uuid[], $2::uuid[]) AS t(member, id)
           JOIN ${this.s}."events" e ON e.event_id = t.id AND e.member_id = t.member
       ),
       fixed AS (
         UPDATE ${this.s}."events" e SET session_id = t.linked, link_version = e.link_version + 1
           FROM target t
          WHERE e.event_id = t.event_id AND e.session_id IS DISTINCT FROM t.linked
         RETURNING e.event_id, e.session_id, e.link_version
       )
       SELECT t.member_id, t.event_id,
              CASE WHEN f.event_id IS NULL THEN t.session_id ELSE f.session_id END AS session_id,
              COALESCE(f.link_version, t.link_version) AS link_version
         FROM target t LEFT JOIN fixed f ON f.event_id = t.event_id
        WHERE COALESCE(f.link_version, t.link_version) > 0
        ORDER BY t.member_id, t.event_id`,
      [events.map((e) => e.memberId), events.map((e) => e.eventId)],
    );
  }
}
