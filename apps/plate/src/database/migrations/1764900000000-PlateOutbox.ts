import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutboxTable, dropOutboxTable } from '@worktrack/platform';

/** The transactional outbox for `plate.events` (items assigned, read by webhooks: D-54). */
export class PlateOutbox1764900000000 implements MigrationInterface {
  name = 'PlateOutbox1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'plate');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'plate');
  }
}
