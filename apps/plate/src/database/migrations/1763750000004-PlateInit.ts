import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Creates the plate schema; its tables arrive with the features that own them. */
export class PlateInit1763750000004 implements MigrationInterface {
  name = 'PlateInit1763750000004';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE SCHEMA IF NOT EXISTS "plate"');
  }

  async down(): Promise<void> {
    // The schema also holds the migrations table; it is never dropped by a migration.
  }
}
