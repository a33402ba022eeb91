import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Creates the ingestion schema; its tables arrive with the features that own them. */
export class IngestionInit1763750000001 implements MigrationInterface {
  name = 'IngestionInit1763750000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE SCHEMA IF NOT EXISTS "ingestion"');
  }

  async down(): Promise<void> {
    // The schema also holds the migrations table; it is never dropped by a migration.
  }
}
