import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The projection keeps each member's newest version and whether it is active. */
export class PlateMemberVersions1764000000001 implements MigrationInterface {
  name = 'PlateMemberVersions1764000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "plate"."members" ADD "version" integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE "plate"."members" ADD "active" boolean NOT NULL DEFAULT true`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "plate"."members" DROP COLUMN "active"`);
    await q.query(`ALTER TABLE "plate"."members" DROP COLUMN "version"`);
  }
}
