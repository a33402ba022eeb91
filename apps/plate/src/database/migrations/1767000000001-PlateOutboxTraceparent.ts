import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addOutboxTraceparent, dropOutboxTraceparent } from '@worktrack/platform';

/** The outbox row carries its writer's trace context (relayed as the message's `traceparent`). */
export class PlateOutboxTraceparent1767000000001 implements MigrationInterface {
  name = 'PlateOutboxTraceparent1767000000001';

  async up(q: QueryRunner): Promise<void> {
    await addOutboxTraceparent(q, 'plate');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTraceparent(q, 'plate');
  }
}
