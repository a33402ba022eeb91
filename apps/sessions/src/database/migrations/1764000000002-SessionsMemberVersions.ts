import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The projection keeps each member's newest version (a late or replayed message never undoes a newer one). */
export class SessionsMemberVersions1764000000002 implements MigrationInterface {
  name = 'SessionsMemberVersions1764000000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "sessions"."members" ADD "version" integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "sessions"."members" DROP COLUMN "version"`);
  }
}
