import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Creates the correlation schema; its tables arrive with the features that own them. */
export class CorrelationInit1763750000002 implements MigrationInterface {
  name = 'CorrelationInit1763750000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE SCHEMA IF NOT EXISTS "correlation"');
  }

  async down(): Promise<void> {
    // The schema also holds the migrations table; it is never dropped by a migration.
  }
}
