import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * ADR 0012 decision 16: a session change applied in one round
 * trip. `apply_session_change` takes the member's advisory lock (the key the
 * event path takes, `correlation:<member id as the message gave it>`), then — each statement of a
 * volatile PL/pgSQL function seeing a snapshot taken after the lock, so
 * nothing another transaction committed under that lock is missed — ignores a
 * stale or repeated revision, upserts the interval, relinks by D-31's rule the
 * events its old or new interval covers, writes the changed links to the
 * outbox as EventsLinked messages (at most `p_links_per_message` links each,
 * keyed by `p_key`, the member id as the message gave it, in event id order) and wakes the relay. It returns how
 * many links changed, or -1 for a stale or repeated change.
 */
export class CorrelationApplySessionChange1764010000000 implements MigrationInterface {
  name = 'CorrelationApplySessionChange1764010000000';

  async up(q: QueryRunner): Promise<void> {
    // eslint-disable-next-line no-restricted-syntax -- the function as first created; migration 1764020000000 replaces it with rows built from the contract
    await q.query(`
      CREATE FUNCTION "correlation"."apply_session_change"(
        p_session uuid, p_member uuid, p_started timestamptz, p_closed timestamptz, p_revision integer,
        p_key text, p_links_per_message integer, p_topic text, p_type text, p_version integer, p_request_id text, p_channel text
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
          INSERT INTO "correlation".outbox (topic, key, type, version, message_id, request_id, payload)
          SELECT p_topic, p_key, p_type, p_version, gen_random_uuid(), p_request_id,
                 jsonb_build_object('memberId', p_key, 'links',
                   jsonb_agg(jsonb_build_object('eventId', l.event_id, 'sessionId', l.session_id, 'version', l.link_version)
                             ORDER BY l.event_id))
            FROM chunked l
           GROUP BY l.chunk
           ORDER BY l.chunk
          RETURNING id
        )
        SELECT count(*)::integer INTO v_changed FROM changed;
        IF v_changed > 0 THEN
          PERFORM pg_notify(p_channel, '');
        END IF;
        RETURN v_changed;
      END
      $fn$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `DROP FUNCTION "correlation"."apply_session_change"(uuid, uuid, timestamptz, timestamptz, integer, text, integer, text, text, integer, text, text)`,
    );
  }
}
