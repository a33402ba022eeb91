import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The plate report's outcomes (D-51): the day an item was asked for (its
 * overflow out of that day) and when it was marked done. A completion may
 * be applied before its assignment, so `overflowed` takes a default the
 * assignment then sets.
 */
export class ReportingPlateOutcomes1765400000000 implements MigrationInterface {
  name = 'ReportingPlateOutcomes1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "reporting"."plate_items"
      ADD COLUMN "requested_date" date, ADD COLUMN "done_at" timestamptz, ALTER COLUMN "overflowed" SET DEFAULT false`);
    await q.query(
      `CREATE INDEX "plate_items_requested" ON "reporting"."plate_items" ("workspace_id", "requested_date", "assignee_id")
        WHERE "requested_date" IS NOT NULL AND "requested_date" <> "plate_date"`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS "reporting"."plate_items_requested"');
    await q.query(
      `ALTER TABLE "reporting"."plate_items" DROP COLUMN "requested_date", DROP COLUMN "done_at", ALTER COLUMN "overflowed" DROP DEFAULT`,
    );
  }
}
