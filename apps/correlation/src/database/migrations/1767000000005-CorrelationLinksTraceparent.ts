import type { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxNotifySql } from '@worktrack/platform';
import { linksInsertSql, usageLinksInsertSql } from '../../links/links.publisher';

const SCHEMA = 'correlation';

const ARGS = {
  apply_session_change: 'uuid, uuid, timestamptz, timestamptz, integer, text, integer, text',
  link_events: 'text[], uuid[], timestamptz[], integer, text',
  link_usage: 'text[], uuid[], timestamptz[], integer, text',
} as const;

/**
 * The EventsLinked and UsageLinked rows of `apply_session_change`,
 * `link_events` and `link_usage` carry the trace context of the consumer that
 * called them (a last argument, `p_traceparent`, text or NULL), as every other
 * outbox row carries its writer's: the message's consumer in ingestion (the
 * link applied) is then a span linked to correlation's, itself linked to the
 * span that stored the event. The functions are otherwise those of
 * migrations 1764200000001 (`apply_session_change`, `link_usage`) and
 * 1764020000000 (`link_events`): same locks, rule, chunks and results.
 */
export class CorrelationLinksTraceparent1767000000005 implements MigrationInterface {
  name = 'CorrelationLinksTraceparent1767000000005';

  async up(q: QueryRunner): Promise<void> {
    for (const [name, args] of Object.entries(ARGS)) await q.query(`DROP FUNCTION "correlation"."${name}"(${args})`);
    for (const sql of functionsSql(true)) await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [name, args] of Object.entries(ARGS)) await q.query(`DROP FUNCTION "correlation"."${name}"(${args}, text)`);
    for (const sql of functionsSql(false)) await q.query(sql);
  }
}

/** The three functions, with `p_traceparent` (and rows carrying it) or as before (rows with a NULL traceparent). */
function functionsSql(traced: boolean): string[] {
  const arg = traced ? ', p_traceparent text' : '';
  const tp = traced ? 'p_traceparent' : undefined;
  return [
    `
      CREATE FUNCTION "correlation"."apply_session_change"(
        p_session uuid, p_member uuid, p_started timestamptz, p_closed timestamptz, p_revision integer,
        p_key text, p_links_per_message integer, p_request_id text${arg}
      ) RETURNS integer LANGUAGE plpgsql VOLATILE AS $fn$
      DECLARE
        v_before "correlation"."sessions"%ROWTYPE;
        v_found boolean;
        v_from timestamptz;
        v_to timestamptz;
        v_changed integer;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtextextended('correlation:' || p_key, 0));
        SELECT * INTO v_before FROM "correlation"."sessions" WHERE session_id = p_session;
        v_found := FOUND;
        IF v_found AND v_before.revision >= p_revision THEN
          RETURN -1;
        END IF;
        INSERT INTO "correlation"."sessions" (session_id, member_id, started_at, closed_at, revision)
        VALUES (p_session, p_member, p_started, p_closed, p_revision)
        ON CONFLICT (session_id) DO UPDATE
          SET started_at = EXCLUDED.started_at, closed_at = EXCLUDED.closed_at, revision = EXCLUDED.revision;
        -- The events and usage records whose link may change: those the old or the new interval covers.
        v_from := CASE WHEN v_found THEN least(p_started, v_before.started_at) ELSE p_started END;
        v_to := CASE
          WHEN p_closed IS NULL OR (v_found AND v_before.closed_at IS NULL) THEN NULL
          WHEN v_found THEN greatest(p_closed, v_before.closed_at)
          ELSE p_closed
        END;
        WITH target AS (
          SELECT e.event_id,
                 (SELECT s.session_id FROM "correlation"."sessions" s
                   WHERE s.member_id = e.member_id AND s.started_at <= e.occurred_at
                     AND (s.closed_at IS NULL OR e.occurred_at < s.closed_at)
                   ORDER BY s.started_at DESC, s.session_id DESC LIMIT 1) AS linked
            FROM "correlation"."events" e
           WHERE e.member_id = p_member AND e.occurred_at >= v_from AND (v_to IS NULL OR e.occurred_at < v_to)
        ),
        changed AS (
          UPDATE "correlation"."events" e SET session_id = t.linked, link_version = e.link_version + 1
            FROM target t
           WHERE e.event_id = t.event_id AND e.session_id IS DISTINCT FROM t.linked
          RETURNING e.event_id, e.session_id, e.link_version, e.kind
        ),
        chunked AS (
          SELECT c.event_id, c.session_id, c.link_version, c.kind,
                 (row_number() OVER (PARTITION BY c.kind ORDER BY c.event_id) - 1) / p_links_per_message AS chunk
            FROM changed c
        ),
        queued_events AS (
          ${linksInsertSql(SCHEMA, 'p_key', 'FROM chunked l WHERE l.kind = 0 GROUP BY l.chunk ORDER BY l.chunk', tp)}
        ),
        queued_usage AS (
          ${usageLinksInsertSql(SCHEMA, 'p_key', 'FROM chunked l WHERE l.kind = 1 GROUP BY l.chunk ORDER BY l.chunk', tp)}
        )
        SELECT count(*)::integer INTO v_changed FROM changed;
        IF v_changed > 0 THEN
          PERFORM ${outboxNotifySql(SCHEMA)};
        END IF;
        RETURN v_changed;
      END
      $fn$`,
    linkNewSql(
      'link_events',
      0,
      linksInsertSql(SCHEMA, 'l.member', 'FROM linked l GROUP BY l.member, l.chunk ORDER BY l.member, l.chunk', tp),
      arg,
    ),
    linkNewSql(
      'link_usage',
      1,
      usageLinksInsertSql(SCHEMA, 'l.member', 'FROM linked l GROUP BY l.member, l.chunk ORDER BY l.member, l.chunk', tp),
      arg,
    ),
  ];
}

/** `link_events` (kind 0, EventsLinked rows) or `link_usage` (kind 1, UsageLinked rows): insert the new ones linked, queue their links. */
function linkNewSql(name: string, kind: 0 | 1, queueSql: string, arg: string): string {
  return `
      CREATE FUNCTION "correlation"."${name}"(
        p_members text[], p_ids uuid[], p_ats timestamptz[], p_links_per_message integer, p_request_id text${arg}
      ) RETURNS integer LANGUAGE plpgsql VOLATILE AS $fn$
      DECLARE
        v_messages integer;
      BEGIN
        PERFORM count(pg_advisory_xact_lock(k)) FROM (
          SELECT DISTINCT hashtextextended('correlation:' || m, 0) AS k FROM unnest(p_members) AS m ORDER BY k) AS keys;
        WITH target AS (
          SELECT t.id, t.member, t.at,
                 (SELECT s.session_id FROM "correlation"."sessions" s
                   WHERE s.member_id = t.member::uuid AND s.started_at <= t.at
                     AND (s.closed_at IS NULL OR t.at < s.closed_at)
                   ORDER BY s.started_at DESC, s.session_id DESC LIMIT 1) AS linked
            FROM unnest(p_members, p_ids, p_ats) AS t(member, id, at)
        ),
        inserted AS (
          INSERT INTO "correlation"."events" (event_id, member_id, occurred_at, session_id, link_version, kind)
          SELECT id, member::uuid, at, linked, CASE WHEN linked IS NULL THEN 0 ELSE 1 END, ${kind} FROM target
          ON CONFLICT DO NOTHING
          RETURNING event_id, session_id, link_version
        ),
        linked AS (
          SELECT t.member, i.event_id, i.session_id, i.link_version,
                 (row_number() OVER (PARTITION BY t.member ORDER BY i.event_id) - 1) / p_links_per_message AS chunk
            FROM inserted i JOIN target t ON t.id = i.event_id
           WHERE i.session_id IS NOT NULL
        ),
        queued AS (
          ${queueSql}
        )
        SELECT count(*)::integer INTO v_messages FROM queued;
        IF v_messages > 0 THEN
          PERFORM ${outboxNotifySql(SCHEMA)};
        END IF;
        RETURN v_messages;
      END
      $fn$`;
}
