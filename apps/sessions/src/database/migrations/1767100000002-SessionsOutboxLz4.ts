import type { MigrationInterface, QueryRunner } from 'typeorm';
import { compressOutboxPayloads, restoreOutboxCompression } from '@worktrack/platform';

/** The outbox's payloads are compressed with lz4 (cheaper for the database than pglz). */
export class SessionsOutboxLz41767100000002 implements MigrationInterface {
  name = 'SessionsOutboxLz41767100000002';

  async up(q: QueryRunner): Promise<void> {
    await compressOutboxPayloads(q, 'sessions');
  }

  async down(q: QueryRunner): Promise<void> {
    await restoreOutboxCompression(q, 'sessions');
  }
}
