import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutboxTable, dropOutboxTable } from '@worktrack/platform';

/** Activity events (D-15 … D-21) and the outbox to correlation. DDL as TypeORM generates it for the entity. */
export class IngestionActivityEvents1763770000000 implements MigrationInterface {
  name = 'IngestionActivityEvents1763770000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "ingestion"."activity_events" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "member_id" uuid NOT NULL, "source_type" character varying(64) NOT NULL, "event_type" character varying(64) NOT NULL, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "received_at" TIMESTAMP WITH TIME ZONE NOT NULL, "payload" jsonb NOT NULL, "external_id" character varying(256), "session_id" uuid, CONSTRAINT "PK_f8e8d9dbf64f93f58ae52b4a9e4" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `CREATE INDEX "ix_activity_events_session" ON "ingestion"."activity_events" ("session_id", "occurred_at") WHERE session_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX "ix_activity_events_timeline" ON "ingestion"."activity_events" ("member_id", "occurred_at", "id")`);
    await q.query(
      `CREATE UNIQUE INDEX "ux_activity_events_dedup" ON "ingestion"."activity_events" ("member_id", "source_type", "external_id") WHERE external_id IS NOT NULL`,
    );
    await createOutboxTable(q, 'ingestion');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'ingestion');
    await q.query(`DROP TABLE "ingestion"."activity_events"`);
  }
}
