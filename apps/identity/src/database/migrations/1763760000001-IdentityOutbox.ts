import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutboxTable, dropOutboxTable } from '@worktrack/platform';

/** The transactional outbox for `identity.events`. */
export class IdentityOutbox1763760000001 implements MigrationInterface {
  name = 'IdentityOutbox1763760000001';

  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'identity');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'identity');
  }
}
