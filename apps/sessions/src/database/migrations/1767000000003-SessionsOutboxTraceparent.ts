import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addOutboxTraceparent, dropOutboxTraceparent } from '@worktrack/platform';

/** The outbox row carries its writer's trace context (relayed as the message's `traceparent`). */
export class SessionsOutboxTraceparent1767000000003 implements MigrationInterface {
  name = 'SessionsOutboxTraceparent1767000000003';

  async up(q: QueryRunner): Promise<void> {
    await addOutboxTraceparent(q, 'sessions');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTraceparent(q, 'sessions');
  }
}
