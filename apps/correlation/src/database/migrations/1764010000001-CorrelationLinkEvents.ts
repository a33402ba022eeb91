import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * ADR 0012 decision 20: stored events linked in one round trip.
 * `link_events` takes the advisory locks of the given members in the order
 * of their keys (`correlation:<member id as the message gave it>`, the key
 * `apply_session_change` takes; never two transactions waiting for each
 * other in a cycle), then — in a statement whose snapshot follows the locks —
 * inserts the events not seen before, each already linked by D-31's rule,
 * and writes the links of the new ones that got a session to the outbox as
 * EventsLinked messages (per member, at most `p_links_per_message` links
 * each, keyed by the member id as given), waking the relay when it wrote
 * any. Returns how many messages it queued. Inside a transaction (a replayed
 * batch) it runs the same; the locks are already held.
 */
export class CorrelationLinkEvents1764010000001 implements MigrationInterface {
  name = 'CorrelationLinkEvents1764010000001';

  async up(q: QueryRunner): Promise<void> {
    // eslint-disable-next-line no-restricted-syntax -- the function as first created; migration 1764020000000 replaces it with rows built from the contract
    await q.query(`
      CREATE FUNCTION "correlation"."link_events"(
        p_members text[], p_ids uuid[], p_ats timestamptz[],
        p_links_per_message integer, p_topic text, p_type text, p_version integer, p_request_id text, p_channel text
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
          INSERT INTO "correlation".outbox (topic, key, type, version, message_id, request_id, payload)
          SELECT p_topic, l.member, p_type, p_version, gen_random_uuid(), p_request_id,
                 jsonb_build_object('memberId', l.member, 'links',
                   jsonb_agg(jsonb_build_object('eventId', l.event_id, 'sessionId', l.session_id, 'version', l.link_version)
                             ORDER BY l.event_id))
            FROM linked l
           GROUP BY l.member, l.chunk
           ORDER BY l.member, l.chunk
          RETURNING id
        )
        SELECT count(*)::integer INTO v_messages FROM queued;
        IF v_messages > 0 THEN
          PERFORM pg_notify(p_channel, '');
        END IF;
        RETURN v_messages;
      END
      $fn$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION "correlation"."link_events"(text[], uuid[], timestamptz[], integer, text, text, integer, text, text)`);
  }
}
