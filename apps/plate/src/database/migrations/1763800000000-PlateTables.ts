import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The member projection, per-day counters and plate items (D-32 … D-35). DDL as TypeORM generates it. */
export class PlateTables1763800000000 implements MigrationInterface {
  name = 'PlateTables1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "plate"."members" ("member_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "timezone" text NOT NULL, "working_hours" jsonb NOT NULL, "plate_capacity" integer NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_7613f2f182039ec974f24a53810" PRIMARY KEY ("member_id"))`,
    );
    await q.query(
      `CREATE TABLE "plate"."plate_days" ("member_id" uuid NOT NULL, "plate_date" date NOT NULL, "active_count" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_192bb4472d3c9e78fd6e93a1a02" PRIMARY KEY ("member_id", "plate_date"))`,
    );
    await q.query(
      `CREATE TABLE "plate"."plate_items" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "assignee_id" uuid NOT NULL, "assigned_by" uuid NOT NULL, "title" text NOT NULL, "plate_date" date NOT NULL, "done_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_440b66325876402d7e3f82a9347" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "ix_plate_items_assignee_day" ON "plate"."plate_items" ("assignee_id", "plate_date")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "plate"."plate_items"`);
    await q.query(`DROP TABLE "plate"."plate_days"`);
    await q.query(`DROP TABLE "plate"."members"`);
  }
}
