import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { EventsStoredV1 } from '@worktrack/contracts';
import { queryRows, schemaOf } from '@worktrack/platform';
import { EventsPublisher } from './events.publisher';

/** A member with events received in the audit's window, and their `occurred_at` span. */
export interface WindowMember {
  member_id: string;
  first: Date;
  last: Date;
  events: number;
}

/** A session as correlation holds it (its cover reply), for D-31's rule. */
export interface CoverSession {
  memberId: string;
  sessionId: string;
  startedAt: string;
  closedAt: string | null;
}

/** An event whose stored link is not the one D-31 gives. */
export interface LinkMismatch {
  id: string;
  member_id: string;
  workspace_id: string;
  occurred_at: Date;
  session_id: string | null;
  expected: string | null;
}

/** The link audit's SQL (ADR 0016): its progress row and lease, the window scan, the rule, the re-announce. */
@Injectable()
export class LinkAuditRepository {
  private readonly s: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly publisher: EventsPublisher,
  ) {
    this.s = `"${schemaOf(dataSource)}"`;
  }

  /**
   * Takes (or renews) the lease for `holder` for `leaseMs` and returns the
   * watermark, or undefined while another replica holds it. The first claim
   * ever starts the watermark at `initial`.
   */
  async claim(holder: string, leaseMs: number, initial: Date): Promise<Date | undefined> {
    await this.dataSource.query(`INSERT INTO ${this.s}."link_audit" (id, watermark) VALUES (1, $1) ON CONFLICT (id) DO NOTHING`, [initial]);
    const rows = await queryRows<{ watermark: Date }>(
      this.dataSource,
      `UPDATE ${this.s}."link_audit" SET lease_holder = $1, lease_until = now() + $2 * interval '1 millisecond'
        WHERE id = 1 AND (lease_until IS NULL OR lease_until < now() OR lease_holder = $1)
       RETURNING watermark`,
      [holder, leaseMs],
    );
    return rows[0]?.watermark;
  }

  /** Extends `holder`'s lease; false when it was lost (it expired and another replica took it). */
  async renew(holder: string, leaseMs: number): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.dataSource,
      `UPDATE ${this.s}."link_audit" SET lease_until = now() + $2 * interval '1 millisecond' WHERE id = 1 AND lease_holder = $1 RETURNING id`,
      [holder, leaseMs],
    );
    return rows.length > 0;
  }

  /** Records the window as audited and gives the lease up (only if still `holder`'s). */
  async advance(holder: string, watermark: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${this.s}."link_audit" SET watermark = GREATEST(watermark, $2), lease_holder = NULL, lease_until = NULL
        WHERE id = 1 AND lease_holder = $1`,
      [holder, watermark],
    );
  }

  async release(holder: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${this.s}."link_audit" SET lease_holder = NULL, lease_until = NULL WHERE id = 1 AND lease_holder = $1`,
      [holder],
    );
  }

  /**
   * Summarises the BRIN index's page ranges filled since the last pass, so
   * that the window's scans read the window's pages, not the table (ADR
   * 0016, ADR 0012 decision 23). Postgres summarises a range only at VACUUM (or through
   * autovacuum's small work-item queue): under steady ingest most ranges were
   * unsummarised, a bitmap scan would have read them all, and the planner
   * chose a sequential scan of the whole table at every pass (1.2 s at 5
   * million rows, against 0.19 s summarised). Costs one pass over the new
   * pages. A VACUUM of the table holds the lock this needs and summarises
   * too: after `lock_timeout` the pass goes on without it. Returns the
   * ranges summarised (null when skipped).
   * Only the index's owner may summarise it: the role that ran ingestion's migrations.
   */
  async summarizeNewRanges(): Promise<number | null> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        await manager.query(`SET LOCAL lock_timeout = '1s'`);
        const rows = await queryRows<{ ranges: number }>(
          manager,
          `SELECT brin_summarize_new_values('${this.s}."ix_activity_events_received_brin"'::regclass) AS ranges`,
        );
        return Number(rows[0].ranges);
      });
    } catch (err) {
      // lock_not_available (a VACUUM holds it), or a role that does not own the index (42501, a
      // deployment whose migrations ran as another role): the pass goes on, reading more pages.
      const code = (err as { code?: string }).code;
      if (code === '55P03' || code === '42501') return null;
      throw err;
    }
  }

  /**
   * Runs one of the window's reads in a transaction (the caller's, when
   * given) whose planner goes through the BRIN index on received_at (issue
   * 17, ADR 0016). Without table statistics — a table never analysed, as on a
   * Postgres without autovacuum, or one grown since its last ANALYZE — the
   * planner prices the BRIN path as reading the whole table and takes a
   * (parallel) sequential scan instead: 0.38 s for an empty window of a
   * 3.6-million-row table, every pass, against 6 ms through the index. A
   * window is always a narrow slice of received_at, so the index is always
   * the right path, and one backend reads it without parallel workers.
   */
  private windowRead<T>(manager: EntityManager | undefined, sql: string, params: unknown[]): Promise<T[]> {
    const read = async (m: EntityManager): Promise<T[]> => {
      await m.query(`SELECT set_config('enable_seqscan', 'off', true), set_config('max_parallel_workers_per_gather', '0', true)`);
      return queryRows<T>(m, sql, params);
    };
    return manager ? read(manager) : this.dataSource.transaction(read);
  }

  /** The members with events received in [from, to), with their `occurred_at` span (the BRIN index on received_at finds the window). */
  windowMembers(from: Date, to: Date, manager?: EntityManager): Promise<WindowMember[]> {
    return this.windowRead<WindowMember>(
      manager,
      `SELECT member_id, min(occurred_at) AS first, max(occurred_at) AS last, count(*)::int AS events
         FROM ${this.s}."activity_events"
        WHERE received_at >= $1 AND received_at < $2
        GROUP BY member_id`,
      [from, to],
    );
  }

  /**
   * The events received in [from, to) of the judged members (each only
   * before its `until`, when set) whose stored link is not the one D-31's
   * rule gives over `sessions` — the same rule as correlation's relink: the
   * session whose [started_at, closed_at) contains occurred_at (open-ended
   * while live), the latest started_at winning, then the greatest id.
   */
  mismatches(
    window: { from: Date; to: Date },
    judged: Array<{ memberId: string; until: string | null }>,
    sessions: CoverSession[],
    manager?: EntityManager,
  ): Promise<LinkMismatch[]> {
    return this.windowRead<LinkMismatch>(
      manager,
      `WITH s AS MATERIALIZED (
         SELECT * FROM unnest($5::uuid[], $6::uuid[], $7::timestamptz[], $8::timestamptz[]) AS s(member_id, session_id, started_at, closed_at)
       ),
       judged AS (
         SELECT DISTINCT ON (e.id) e.id, e.member_id, e.workspace_id, e.occurred_at, e.session_id, s.session_id AS expected
           FROM ${this.s}."activity_events" e
           JOIN unnest($3::uuid[], $4::timestamptz[]) AS m(member_id, until)
             ON e.member_id = m.member_id AND (m.until IS NULL OR e.occurred_at < m.until)
           LEFT JOIN s ON s.member_id = e.member_id AND s.started_at <= e.occurred_at
                      AND (s.closed_at IS NULL OR e.occurred_at < s.closed_at)
          WHERE e.received_at >= $1 AND e.received_at < $2
            -- An unlinked event of a member without sessions is right as it is: only the others are judged (the ingest benchmark's case).
            AND (e.session_id IS NOT NULL OR e.member_id = ANY($9::uuid[]))
          ORDER BY e.id, s.started_at DESC NULLS LAST, s.session_id DESC NULLS LAST
       )
       SELECT * FROM judged WHERE session_id IS DISTINCT FROM expected ORDER BY member_id, occurred_at, id`,
      [
        window.from,
        window.to,
        judged.map((j) => j.memberId),
        judged.map((j) => j.until),
        sessions.map((x) => x.memberId),
        sessions.map((x) => x.sessionId),
        sessions.map((x) => x.startedAt),
        sessions.map((x) => x.closedAt),
        [...new Set(sessions.map((x) => x.memberId))],
      ],
    );
  }

  /** Queues EventsStored messages (replays) through the outbox, in one transaction: published if and only if it commits. */
  async reannounce(messages: EventsStoredV1[]): Promise<void> {
    if (messages.length === 0) return;
    await this.dataSource.transaction((manager) => this.publisher.reannounced(manager, messages));
  }
}
