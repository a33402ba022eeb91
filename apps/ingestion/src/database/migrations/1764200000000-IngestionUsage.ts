import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Usage records (D-45 … D-48) and the workspaces' model price lists (D-47).
 * Costs and prices are NUMERIC: exact, and a reported cost keeps the scale it
 * was sent with. The D-46 key is a unique index (every record has an
 * external_id); the list reads (member, occurred_at, id) backwards.
 */
export class IngestionUsage1764200000000 implements MigrationInterface {
  name = 'IngestionUsage1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "ingestion"."usage_records" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "member_id" uuid NOT NULL, "provider" character varying(64) NOT NULL, "external_id" character varying(256) NOT NULL, "model" character varying(256), "operation" character varying(64) NOT NULL, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "received_at" TIMESTAMP WITH TIME ZONE NOT NULL, "duration_ms" integer, "input_tokens" integer, "output_tokens" integer, "cache_read_input_tokens" integer, "cache_creation_input_tokens" integer, "reasoning_output_tokens" integer, "cost" numeric, "currency" character varying(3), "cost_source" character varying(16) NOT NULL, "conversation_id" character varying(256), "tool_name" character varying(128), "attributes" jsonb NOT NULL, "session_id" uuid, "session_named" boolean NOT NULL DEFAULT false, "link_version" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_usage_records" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "ux_usage_records_dedup" ON "ingestion"."usage_records" ("member_id", "provider", "external_id")`);
    await q.query(`CREATE INDEX "ix_usage_records_list" ON "ingestion"."usage_records" ("member_id", "occurred_at", "id")`);
    await q.query(
      `CREATE TABLE "ingestion"."model_prices" ("workspace_id" uuid NOT NULL, "provider" character varying(64) NOT NULL, "model_pattern" character varying(256) NOT NULL, "effective_from" TIMESTAMP WITH TIME ZONE NOT NULL, "input" numeric NOT NULL, "output" numeric NOT NULL, "cache_read_input" numeric, "cache_creation_input" numeric, "reasoning_output" numeric, CONSTRAINT "PK_model_prices" PRIMARY KEY ("workspace_id", "provider", "model_pattern", "effective_from"))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "ingestion"."model_prices"`);
    await q.query(`DROP TABLE "ingestion"."usage_records"`);
  }
}
