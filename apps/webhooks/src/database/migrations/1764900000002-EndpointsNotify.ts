import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every write that can change what a workspace subscribes to (an endpoint
 * created, deleted, enabled or disabled, its event types changed) notifies
 * `<schema>.endpoints` with the workspace id, at commit. Each replica's
 * subscription index LISTENs to it (D-54: a batch of changes whose
 * workspaces subscribe to nothing is skipped without a statement). A
 * trigger rather than a NOTIFY beside each write: every path that writes,
 * present or future, notifies.
 */
export class EndpointsNotify1764900000002 implements MigrationInterface {
  name = 'EndpointsNotify1764900000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION "webhooks"."endpoints_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          PERFORM pg_notify(TG_TABLE_SCHEMA || '.endpoints', OLD.workspace_id::text);
        END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.workspace_id IS DISTINCT FROM OLD.workspace_id) THEN
          PERFORM pg_notify(TG_TABLE_SCHEMA || '.endpoints', NEW.workspace_id::text);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER "endpoints_notify_rows" AFTER INSERT OR DELETE ON "webhooks"."endpoints"
      FOR EACH ROW EXECUTE FUNCTION "webhooks"."endpoints_notify"()`);
    // An attempt's end updates its endpoint's failure streak: that changes no subscription and notifies nobody.
    await q.query(`CREATE TRIGGER "endpoints_notify_subscriptions" AFTER UPDATE ON "webhooks"."endpoints"
      FOR EACH ROW WHEN (OLD.enabled IS DISTINCT FROM NEW.enabled OR OLD.event_types IS DISTINCT FROM NEW.event_types
                         OR OLD.workspace_id IS DISTINCT FROM NEW.workspace_id)
      EXECUTE FUNCTION "webhooks"."endpoints_notify"()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER "endpoints_notify_subscriptions" ON "webhooks"."endpoints"');
    await q.query('DROP TRIGGER "endpoints_notify_rows" ON "webhooks"."endpoints"');
    await q.query('DROP FUNCTION "webhooks"."endpoints_notify"()');
  }
}
