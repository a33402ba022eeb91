import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Usage records' pages are filled to half (ADR 0017): each record is updated
 * once, when correlation links it, and the free half lets that update stay
 * on its page (a HOT update, no new entry in any of the table's three
 * indexes). Applies to pages filled from now on.
 */
export class IngestionUsageFillfactor1767100000005 implements MigrationInterface {
  name = 'IngestionUsageFillfactor1767100000005';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE "ingestion"."usage_records" SET (fillfactor = 50)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE "ingestion"."usage_records" RESET (fillfactor)');
  }
}
