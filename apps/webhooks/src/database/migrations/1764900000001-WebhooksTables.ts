import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The webhooks schema: endpoints (D-53), one message per source event
 * (D-54, the id derived from the event), one delivery per message and
 * endpoint (its state and next attempt: the claim queue, D-55) and the
 * attempt log (D-56).
 */
export class WebhooksTables1764900000001 implements MigrationInterface {
  name = 'WebhooksTables1764900000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE SCHEMA IF NOT EXISTS "webhooks"');
    await q.query(`CREATE TABLE "webhooks"."endpoints" (
      "id" uuid NOT NULL,
      "workspace_id" uuid NOT NULL,
      "url" text NOT NULL,
      "event_types" text[] NOT NULL,
      "description" text,
      "enabled" boolean NOT NULL DEFAULT true,
      "disabled_reason" text,
      "secret" text NOT NULL,
      "previous_secret" text,
      "previous_secret_until" TIMESTAMP WITH TIME ZONE,
      "failing_since" TIMESTAMP WITH TIME ZONE,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "endpoints_pkey" PRIMARY KEY ("id"))`);
    await q.query('CREATE INDEX "endpoints_workspace" ON "webhooks"."endpoints" ("workspace_id", "created_at", "id")');
    await q.query(`CREATE TABLE "webhooks"."messages" (
      "id" text NOT NULL,
      "workspace_id" uuid NOT NULL,
      "type" text NOT NULL,
      "body" text NOT NULL,
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "messages_pkey" PRIMARY KEY ("id"))`);
    await q.query('CREATE INDEX "messages_created" ON "webhooks"."messages" ("created_at")');
    await q.query(`CREATE TABLE "webhooks"."deliveries" (
      "endpoint_id" uuid NOT NULL REFERENCES "webhooks"."endpoints" ("id") ON DELETE CASCADE,
      "webhook_id" text NOT NULL REFERENCES "webhooks"."messages" ("id") ON DELETE CASCADE,
      "state" text NOT NULL DEFAULT 'pending',
      "attempts" integer NOT NULL DEFAULT 0,
      "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "deliveries_pkey" PRIMARY KEY ("endpoint_id", "webhook_id"),
      CONSTRAINT "deliveries_state" CHECK ("state" IN ('pending', 'sending', 'succeeded', 'failed')))`);
    await q.query(
      `CREATE INDEX "deliveries_due" ON "webhooks"."deliveries" ("endpoint_id", "next_attempt_at") WHERE "state" IN ('pending', 'sending')`,
    );
    await q.query('CREATE INDEX "deliveries_message" ON "webhooks"."deliveries" ("webhook_id")');
    await q.query(`CREATE TABLE "webhooks"."attempts" (
      "id" uuid NOT NULL,
      "endpoint_id" uuid NOT NULL REFERENCES "webhooks"."endpoints" ("id") ON DELETE CASCADE,
      "webhook_id" text NOT NULL,
      "type" text NOT NULL,
      "status_code" integer,
      "outcome" text NOT NULL,
      "duration_ms" integer NOT NULL,
      "attempted_at" TIMESTAMP WITH TIME ZONE NOT NULL,
      "next_attempt_at" TIMESTAMP WITH TIME ZONE,
      CONSTRAINT "attempts_pkey" PRIMARY KEY ("id"))`);
    await q.query('CREATE INDEX "attempts_endpoint" ON "webhooks"."attempts" ("endpoint_id", "attempted_at" DESC, "id" DESC)');
    await q.query('CREATE INDEX "attempts_attempted" ON "webhooks"."attempts" ("attempted_at")');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE "webhooks"."attempts"');
    await q.query('DROP TABLE "webhooks"."deliveries"');
    await q.query('DROP TABLE "webhooks"."messages"');
    await q.query('DROP TABLE "webhooks"."endpoints"');
  }
}
