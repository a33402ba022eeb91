import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Connector configurations and the delivery log (D-36). DDL as TypeORM generates it. */
export class ConnectorsTables1763900000001 implements MigrationInterface {
  name = 'ConnectorsTables1763900000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "connectors"."connectors" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "member_id" uuid NOT NULL, "created_by" uuid NOT NULL, "kind" text NOT NULL, "name" text NOT NULL, "account" text, "secret_box" text, "feed_box" text, "feed_display" text, "poll_interval_seconds" integer, "credential_token_id" text NOT NULL, "credential_box" text NOT NULL, "status" text NOT NULL DEFAULT 'active', "last_error" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, "last_delivery_at" TIMESTAMP WITH TIME ZONE, "last_polled_at" TIMESTAMP WITH TIME ZONE, "next_poll_at" TIMESTAMP WITH TIME ZONE, "poll_lease_until" TIMESTAMP WITH TIME ZONE, "calendar_state" jsonb, CONSTRAINT "PK_c1334e2a68a8de86d1732a8e3fb" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `CREATE INDEX "ix_connectors_due_polls" ON "connectors"."connectors" ("next_poll_at") WHERE "kind" = 'calendar' AND "deleted_at" IS NULL`,
    );
    await q.query(`CREATE INDEX "ix_connectors_creator" ON "connectors"."connectors" ("workspace_id", "created_by") `);
    await q.query(`CREATE INDEX "ix_connectors_member" ON "connectors"."connectors" ("workspace_id", "member_id") `);
    await q.query(
      `CREATE TABLE "connectors"."deliveries" ("id" uuid NOT NULL, "connector_id" uuid NOT NULL, "received_at" TIMESTAMP WITH TIME ZONE NOT NULL, "provider_delivery_id" text NOT NULL, "provider_event" text NOT NULL, "verified" boolean NOT NULL DEFAULT true, "state" text NOT NULL, "events" jsonb NOT NULL, "events_mapped" integer NOT NULL DEFAULT '0', "events_accepted" integer NOT NULL DEFAULT '0', "events_deduplicated" integer NOT NULL DEFAULT '0', "detail" text, "attempts" integer NOT NULL DEFAULT '0', "retry_num" integer, "next_attempt_at" TIMESTAMP WITH TIME ZONE, "lease_until" TIMESTAMP WITH TIME ZONE, "processed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_a6ef225c5c5f0974e503bfb731f" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "ix_deliveries_due" ON "connectors"."deliveries" ("next_attempt_at") WHERE "state" = 'pending'`);
    await q.query(`CREATE INDEX "ix_deliveries_log" ON "connectors"."deliveries" ("connector_id", "received_at", "id") `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "connectors"."deliveries"`);
    await q.query(`DROP TABLE "connectors"."connectors"`);
  }
}
