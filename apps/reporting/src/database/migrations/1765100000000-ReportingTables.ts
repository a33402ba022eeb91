import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The reporting schema (ADR 0018): the facts it is fed by topics (members,
 * sessions with their changes, events and usage with their links, plate
 * items), the buckets reports sum (per member and UTC hour, per member and
 * day in the member's zone), and the consumed position of every partition,
 * written in the transaction that applies the messages.
 */
export class ReportingTables1765100000000 implements MigrationInterface {
  name = 'ReportingTables1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE SCHEMA IF NOT EXISTS "reporting"');
    await q.query(`CREATE TABLE "reporting"."positions" (
      "topic" text NOT NULL, "partition" int NOT NULL, "next_offset" bigint NOT NULL,
      "updated_at" timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT "positions_pkey" PRIMARY KEY ("topic", "partition"))`);
    await q.query(`CREATE TABLE "reporting"."members" (
      "member_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "kind" text NOT NULL, "timezone" text NOT NULL,
      "plate_capacity" int NOT NULL, "version" int NOT NULL,
      CONSTRAINT "members_pkey" PRIMARY KEY ("member_id"))`);
    await q.query('CREATE INDEX "members_workspace" ON "reporting"."members" ("workspace_id")');
    await q.query(`CREATE TABLE "reporting"."sessions" (
      "session_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "member_id" uuid NOT NULL, "revision" int NOT NULL,
      "state" text NOT NULL, "source" text NOT NULL, "work_type" text NOT NULL, "project_id" uuid, "goal_id" uuid,
      "intent_text" text NOT NULL, "user_tags" text[] NOT NULL, "started_at" timestamptz NOT NULL, "closed_at" timestamptz,
      "created_at" timestamptz NOT NULL,
      CONSTRAINT "sessions_pkey" PRIMARY KEY ("session_id"))`);
    await q.query('CREATE INDEX "sessions_member_started" ON "reporting"."sessions" ("member_id", "started_at")');
    await q.query('CREATE INDEX "sessions_workspace_started" ON "reporting"."sessions" ("workspace_id", "started_at")');
    await q.query(`CREATE INDEX "sessions_live" ON "reporting"."sessions" ("workspace_id") WHERE "state" <> 'closed'`);
    await q.query(`CREATE TABLE "reporting"."session_changes" (
      "session_id" uuid NOT NULL, "revision" int NOT NULL, "change" text NOT NULL, "changed_at" timestamptz NOT NULL,
      "closed_at" timestamptz,
      CONSTRAINT "session_changes_pkey" PRIMARY KEY ("session_id", "revision"))`);
    await q.query(`CREATE TABLE "reporting"."session_pauses" (
      "session_id" uuid NOT NULL, "paused_at" timestamptz NOT NULL, "resumed_at" timestamptz,
      CONSTRAINT "session_pauses_pkey" PRIMARY KEY ("session_id", "paused_at"))`);
    await q.query(`CREATE TABLE "reporting"."events" (
      "event_id" uuid NOT NULL, "workspace_id" uuid, "member_id" uuid NOT NULL, "occurred_at" timestamptz,
      "source_type" text, "event_type" text, "session_id" uuid, "link_version" int NOT NULL DEFAULT 0,
      CONSTRAINT "events_pkey" PRIMARY KEY ("event_id"))`);
    await q.query('CREATE INDEX "events_member_occurred" ON "reporting"."events" ("member_id", "occurred_at")');
    await q.query('CREATE INDEX "events_session" ON "reporting"."events" ("session_id") WHERE "session_id" IS NOT NULL');
    await q.query(`CREATE TABLE "reporting"."usage" (
      "usage_id" uuid NOT NULL, "workspace_id" uuid, "member_id" uuid NOT NULL, "occurred_at" timestamptz,
      "cost" numeric, "input_tokens" bigint NOT NULL DEFAULT 0, "output_tokens" bigint NOT NULL DEFAULT 0,
      "session_id" uuid, "own_session" boolean NOT NULL DEFAULT false, "link_version" int NOT NULL DEFAULT 0,
      CONSTRAINT "usage_pkey" PRIMARY KEY ("usage_id"))`);
    await q.query('CREATE INDEX "usage_member_occurred" ON "reporting"."usage" ("member_id", "occurred_at")');
    await q.query('CREATE INDEX "usage_session" ON "reporting"."usage" ("session_id") WHERE "session_id" IS NOT NULL');
    await q.query(`CREATE TABLE "reporting"."plate_items" (
      "plate_item_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "assignee_id" uuid NOT NULL, "plate_date" date NOT NULL,
      "overflowed" boolean NOT NULL,
      CONSTRAINT "plate_items_pkey" PRIMARY KEY ("plate_item_id"))`);
    await q.query('CREATE INDEX "plate_items_assignee" ON "reporting"."plate_items" ("workspace_id", "plate_date", "assignee_id")');
    // One row per member, bucket and session keys; the session keys are '' when null, so they can be part of the key.
    for (const [table, unit] of [
      ['hour_buckets', 'timestamptz'],
      ['day_buckets', 'date'],
    ] as const) {
      await q.query(`CREATE TABLE "reporting"."${table}" (
        "workspace_id" uuid NOT NULL, "member_id" uuid NOT NULL, "bucket" ${unit} NOT NULL,
        "work_type" text NOT NULL, "project_id" text NOT NULL, "goal_id" text NOT NULL,
        "tracked_ms" bigint NOT NULL, "paused_ms" bigint NOT NULL, "session_count" int NOT NULL,
        "linked_event_count" int NOT NULL, "outside_session_event_count" int NOT NULL,
        "usage_cost" numeric NOT NULL, "input_tokens" bigint NOT NULL, "output_tokens" bigint NOT NULL,
        CONSTRAINT "${table}_pkey" PRIMARY KEY ("member_id", "bucket", "work_type", "project_id", "goal_id"))`);
      await q.query(`CREATE INDEX "${table}_workspace" ON "reporting"."${table}" ("workspace_id", "bucket")`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP SCHEMA IF EXISTS "reporting" CASCADE');
  }
}
