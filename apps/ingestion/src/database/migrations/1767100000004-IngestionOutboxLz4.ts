import type { MigrationInterface, QueryRunner } from 'typeorm';
import { compressOutboxPayloads, restoreOutboxCompression } from '@worktrack/platform';

/** The outbox's payloads are compressed with lz4 (cheaper for the database than pglz). */
export class IngestionOutboxLz41767100000004 implements MigrationInterface {
  name = 'IngestionOutboxLz41767100000004';

  async up(q: QueryRunner): Promise<void> {
    await compressOutboxPayloads(q, 'ingestion');
  }

  async down(q: QueryRunner): Promise<void> {
    await restoreOutboxCompression(q, 'ingestion');
  }
}
