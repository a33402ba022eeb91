import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A member's version (grows with every change, so consumers keep the
 * newest state whatever order they read it in) and its deactivation time
 * (deactivated members keep every row; their credentials stop working).
 */
export class IdentityMemberVersions1764000000000 implements MigrationInterface {
  name = 'IdentityMemberVersions1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "identity"."members" ADD "version" integer NOT NULL DEFAULT 1`);
    await q.query(`ALTER TABLE "identity"."members" ADD "deactivated_at" TIMESTAMP WITH TIME ZONE`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "identity"."members" DROP COLUMN "deactivated_at"`);
    await q.query(`ALTER TABLE "identity"."members" DROP COLUMN "version"`);
  }
}
