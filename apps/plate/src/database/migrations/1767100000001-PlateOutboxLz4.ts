import type { MigrationInterface, QueryRunner } from 'typeorm';
import { compressOutboxPayloads, restoreOutboxCompression } from '@worktrack/platform';

/** The outbox's payloads are compressed with lz4 (cheaper for the database than pglz). */
export class PlateOutboxLz41767100000001 implements MigrationInterface {
  name = 'PlateOutboxLz41767100000001';

  async up(q: QueryRunner): Promise<void> {
    await compressOutboxPayloads(q, 'plate');
  }

  async down(q: QueryRunner): Promise<void> {
    await restoreOutboxCompression(q, 'plate');
  }
}
