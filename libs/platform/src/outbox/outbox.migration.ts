import type { QueryRunner } from 'typeorm';

const table = (schema: string): string => `"${schema.replace(/"/g, '""')}"."outbox"`;

/**
 * Creates the outbox table of `OutboxMessageEntity` in `schema`; a service's
 * own migration calls it. The SQL is what TypeORM generates for the entity,
 * so the drift check (each service's skeleton spec) stays empty.
 */
export async function createOutboxTable(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(
    `CREATE TABLE ${table(schema)} (` +
      '"id" BIGSERIAL NOT NULL, ' +
      '"topic" text NOT NULL, ' +
      '"key" text NOT NULL, ' +
      '"type" text NOT NULL, ' +
      '"version" integer NOT NULL, ' +
      '"message_id" uuid NOT NULL, ' +
      '"request_id" text, ' +
      '"payload" jsonb NOT NULL, ' +
      '"created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), ' +
      'CONSTRAINT "outbox_pkey" PRIMARY KEY ("id"))',
  );
}

export async function dropOutboxTable(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`DROP TABLE ${table(schema)}`);
}
