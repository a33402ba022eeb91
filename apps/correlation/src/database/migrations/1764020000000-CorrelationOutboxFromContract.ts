import type { MigrationInterface, QueryRunner } from 'typeorm';
import { outboxNotifySql } from '@worktrack/platform';
import { linksInsertSql } from '../../links/links.publisher';
import { CorrelationApplySessionChange1764010000000 } from './1764010000000-CorrelationApplySessionChange';
import { CorrelationLinkEvents1764010000001 } from './1764010000001-CorrelationLinkEvents';

const SCHEMA = 'correlation';

/**
 * `apply_session_change` and `link_events` (ADR 0012 decisions 16 and 20)
 * with their EventsLinked outbox rows built from the contract
 * (`linksInsertSql`): the topic, type and version are the contract's, no
 * longer arguments, and the payload's keys are the contract's properties.
 * What the functions lock, link, chunk and return is unchanged.
 *
 * `apply_session_change` takes the member's advisory lock (the key the event
 * path takes, `correlation:<member id as the message gave it>`), then — each
 * statement of a volatile PL/pgSQL function seeing a snapshot taken after the
 * lock — ignores a stale or repeated revision, upserts the interval, relinks
 * by D-31's rule the events its old or new interval covers, queues the
 * changed links (at most `p_links_per_message` each, keyed by `p_key`, in
 * event id order) and wakes the relay. It returns how many links changed, or
 * -1 for a stale or repeated change.
 *
 * `link_events` takes the advisory locks of the given members in the order of
 * their keys (never two transactions waiting for each other in a cycle), then
 * inserts the events not seen before, each already linked by D-31's rule, and
 * queues the links of the new ones that got a session (per member, at most
 * `p_links_per_message` each, keyed by the member id as given), waking the
 * relay when it wrote any. It returns how many messages it queued.
 */
export class CorrelationOutboxFromContract1764020000000 implements MigrationInterface {
  name = 'CorrelationOutboxFromContract1764020000000';

  async up(q: QueryRunner): Promise<void> {
    await dropPrevious(q);
    await q.query(`
      CREATE FUNCTION "correlation"."apply_session_change"(
        p_session uuid, p_member uuid, p_started timestamptz, p_closed timestamptz, p_revision integer,
        p_key text, p_links_per_message integer, p_request_id text
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
        -- The events whose link may change: those the old or the new interval covers.
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
          RETURNING e.event_id, e.session_id, e.link_version
        ),
        chunked AS (
          SELECT c.event_id, c.session_id, c.link_version,
                 (row_number() OVER (ORDER BY c.event_id) - 1) / p_links_per_message AS chunk
            FROM changed c
        ),
        queued AS (
          ${linksInsertSql(SCHEMA, 'p_key', 'FROM chunked l GROUP BY l.chunk ORDER BY l.chunk')}
        )
        SELECT count(*)::integer INTO v_changed FROM changed;
        IF v_changed > 0 THEN
          PERFORM ${outboxNotifySql(SCHEMA)};
        END IF;
        RETURN v_changed;
      END
      $fn$`);
    await q.query(`
      CREATE FUNCTION "correlation"."link_events"(
        p_members text[], p_ids uuid[], p_ats timestamptz[], p_links_per_message integer, p_request_id text
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
          INSERT INTO "correlation"."events" (event_id, member_id, occurred_at, session_id, link_version)
          SELECT id, member::uuid, at, linked, CASE WHEN linked IS NULL THEN 0 ELSE 1 END FROM target
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
          ${linksInsertSql(SCHEMA, 'l.member', 'FROM linked l GROUP BY l.member, l.chunk ORDER BY l.member, l.chunk')}
        )
        SELECT count(*)::integer INTO v_messages FROM queued;
        IF v_messages > 0 THEN
          PERFORM ${outboxNotifySql(SCHEMA)};
        END IF;
        RETURN v_messages;
      END
      $fn$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION "correlation"."apply_session_change"(uuid, uuid, timestamptz, timestamptz, integer, text, integer, text)`);
    await q.query(`DROP FUNCTION "correlation"."link_events"(text[], uuid[], timestamptz[], integer, text)`);
    await new CorrelationApplySessionChange1764010000000().up(q);
    await new CorrelationLinkEvents1764010000001().up(q);
  }
}

/** The functions as first created, whose outbox rows took the topic, type and version as arguments. */
async function dropPrevious(q: QueryRunner): Promise<void> {
  await new CorrelationApplySessionChange1764010000000().down(q);
  await new CorrelationLinkEvents1764010000001().down(q);
}
