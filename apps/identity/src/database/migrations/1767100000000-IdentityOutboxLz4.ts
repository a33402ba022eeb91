import type { MigrationInterface, QueryRunner } from 'typeorm';
import { compressOutboxPayloads, restoreOutboxCompression } from '@worktrack/platform';

/** The outbox's payloads are compressed with lz4 (cheaper for the database than pglz). */
export class IdentityOutboxLz41767100000000 implements MigrationInterface {
  name = 'IdentityOutboxLz41767100000000';

  async up(q: QueryRunner): Promise<void> {
    await compressOutboxPayloads(q, 'identity');
  }

  async down(q: QueryRunner): Promise<void> {
    await restoreOutboxCompression(q, 'identity');
  }
}
