import type { MigrationInterface, QueryRunner } from 'typeorm';
import { compressOutboxPayloads, restoreOutboxCompression } from '@worktrack/platform';

/** The outbox's payloads are compressed with lz4 (cheaper for the database than pglz). */
export class CorrelationOutboxLz41767100000003 implements MigrationInterface {
  name = 'CorrelationOutboxLz41767100000003';

  async up(q: QueryRunner): Promise<void> {
    await compressOutboxPayloads(q, 'correlation');
  }

  async down(q: QueryRunner): Promise<void> {
    await restoreOutboxCompression(q, 'correlation');
  }
}
