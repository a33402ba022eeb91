import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Creates the identity schema; its tables arrive with the features that own them. */
export class IdentityInit1763750000000 implements MigrationInterface {
  name = 'IdentityInit1763750000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE SCHEMA IF NOT EXISTS "identity"');
  }

  async down(): Promise<void> {
    // The schema also holds the migrations table; it is never dropped by a migration.
  }
}
