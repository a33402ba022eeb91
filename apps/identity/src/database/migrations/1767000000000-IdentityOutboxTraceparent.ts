import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addOutboxTraceparent, dropOutboxTraceparent } from '@worktrack/platform';

/** The outbox row carries its writer's trace context (relayed as the message's `traceparent`). */
export class IdentityOutboxTraceparent1767000000000 implements MigrationInterface {
  name = 'IdentityOutboxTraceparent1767000000000';

  async up(q: QueryRunner): Promise<void> {
    await addOutboxTraceparent(q, 'identity');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTraceparent(q, 'identity');
  }
}
