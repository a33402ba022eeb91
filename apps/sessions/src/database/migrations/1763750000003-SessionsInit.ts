import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Creates the sessions schema; its tables arrive with the features that own them. */
export class SessionsInit1763750000003 implements MigrationInterface {
  name = 'SessionsInit1763750000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE SCHEMA IF NOT EXISTS "sessions"');
  }

  async down(): Promise<void> {
    // The schema also holds the migrations table; it is never dropped by a migration.
  }
}
