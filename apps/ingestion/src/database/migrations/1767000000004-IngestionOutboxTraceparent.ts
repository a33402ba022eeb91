import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addOutboxTraceparent, dropOutboxTraceparent } from '@worktrack/platform';

/** The outbox row carries its writer's trace context (relayed as the message's `traceparent`). */
export class IngestionOutboxTraceparent1767000000004 implements MigrationInterface {
  name = 'IngestionOutboxTraceparent1767000000004';

  async up(q: QueryRunner): Promise<void> {
    await addOutboxTraceparent(q, 'ingestion');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTraceparent(q, 'ingestion');
  }
}
