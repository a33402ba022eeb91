import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Correlation's links carry a version; an event keeps the newest it received (D-31). */
export class IngestionLinkVersion1763810000001 implements MigrationInterface {
  name = 'IngestionLinkVersion1763810000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "ingestion"."activity_events" ADD "link_version" integer NOT NULL DEFAULT '0'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "ingestion"."activity_events" DROP COLUMN "link_version"`);
  }
}
