import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Creates the connectors schema; its tables arrive with the features that own them. */
export class ConnectorsInit1763900000000 implements MigrationInterface {
  name = 'ConnectorsInit1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE SCHEMA IF NOT EXISTS "connectors"');
  }

  async down(): Promise<void> {
    // The schema also holds the migrations table; it is never dropped by a migration.
  }
}
