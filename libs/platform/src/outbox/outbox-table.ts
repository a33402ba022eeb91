import { createHash } from 'node:crypto';
import type { QueryRunner } from 'typeorm';

/** Creates the outbox table in `schema`; a service's own migration calls it. */
export async function createOutboxTable(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(
    `CREATE TABLE ${outboxTable(schema)} (` +
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

/**
 * Adds the `traceparent` column (the W3C trace context of the span that wrote
 * the row, relayed as the message's `traceparent` header); each service's own
 * migration calls it after `createOutboxTable`.
 */
export async function addOutboxTraceparent(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`ALTER TABLE ${outboxTable(schema)} ADD COLUMN IF NOT EXISTS "traceparent" text`);
}

export async function dropOutboxTraceparent(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`ALTER TABLE ${outboxTable(schema)} DROP COLUMN IF EXISTS "traceparent"`);
}

export async function dropOutboxTable(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`DROP TABLE ${outboxTable(schema)}`);
}

/**
 * Compresses the outbox's payloads with lz4 instead of pglz, Postgres's
 * default: a payload of more than about 2 KB (a batch's stored message) is
 * compressed as it is written and decompressed as the relay reads it; with
 * lz4 the insert of such a row costs the database a third to a half less CPU
 * than with pglz, for about the same size (ADR 0012, decision 29). A server
 * built without lz4 keeps pglz. Each service's own migration calls it.
 */
export async function compressOutboxPayloads(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(
    `DO $$ BEGIN
       ALTER TABLE ${outboxTable(schema)} ALTER COLUMN "payload" SET COMPRESSION lz4;
     EXCEPTION WHEN feature_not_supported THEN
       RAISE NOTICE 'lz4 is not available: outbox payloads stay compressed with pglz';
     END $$`,
  );
}

/** Back to the server's default compression (`default_toast_compression`) for the outbox's payloads. */
export async function restoreOutboxCompression(queryRunner: QueryRunner, schema: string): Promise<void> {
  await queryRunner.query(`ALTER TABLE ${outboxTable(schema)} ALTER COLUMN "payload" SET COMPRESSION default`);
}

/** The schema's outbox table, quoted. */
export const outboxTable = (schema: string): string => `"${schema.replace(/"/g, '""')}".outbox`;

/** The NOTIFY channel of a schema's outbox (hashed: a channel name holds at most 63 bytes). */
export function outboxChannel(schema: string): string {
  return `worktrack_outbox_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
}
