import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The link audit (ADR 0016): its progress row, and a BRIN index on
 * `received_at` for its window scan: rows arrive in `received_at` order, so a
 * few pages of ranges find a window for next to nothing on insert.
 */
export class IngestionLinkAudit1764100000000 implements MigrationInterface {
  name = 'IngestionLinkAudit1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "ingestion"."link_audit" ("id" smallint NOT NULL, "watermark" TIMESTAMP WITH TIME ZONE NOT NULL, "lease_holder" text, "lease_until" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_e13e344b3abe7bba2785cc58a92" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `CREATE INDEX "ix_activity_events_received_brin" ON "ingestion"."activity_events" USING brin ("received_at") WITH (pages_per_range = 32)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ingestion"."ix_activity_events_received_brin"`);
    await q.query(`DROP TABLE "ingestion"."link_audit"`);
  }
}
