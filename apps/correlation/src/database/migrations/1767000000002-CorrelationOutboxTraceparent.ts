import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addOutboxTraceparent, dropOutboxTraceparent } from '@worktrack/platform';

/** The outbox row carries its writer's trace context (relayed as the message's `traceparent`). */
export class CorrelationOutboxTraceparent1767000000002 implements MigrationInterface {
  name = 'CorrelationOutboxTraceparent1767000000002';

  async up(q: QueryRunner): Promise<void> {
    await addOutboxTraceparent(q, 'correlation');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTraceparent(q, 'correlation');
  }
}
