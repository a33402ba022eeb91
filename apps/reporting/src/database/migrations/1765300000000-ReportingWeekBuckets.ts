import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Week buckets (ADR 0018): the day buckets rolled up per member and ISO week
 * (the week's Monday in the member's zone), rewritten with the day buckets, so
 * a year's summary by week reads one row per member and week instead of seven.
 */
export class ReportingWeekBuckets1765300000000 implements MigrationInterface {
  name = 'ReportingWeekBuckets1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "reporting"."week_buckets" (
      "workspace_id" uuid NOT NULL, "member_id" uuid NOT NULL, "bucket" date NOT NULL,
      "work_type" text NOT NULL, "project_id" text NOT NULL, "goal_id" text NOT NULL,
      "tracked_ms" bigint NOT NULL, "paused_ms" bigint NOT NULL, "session_count" int NOT NULL,
      "linked_event_count" int NOT NULL, "outside_session_event_count" int NOT NULL,
      "usage_cost" numeric NOT NULL, "input_tokens" bigint NOT NULL, "output_tokens" bigint NOT NULL,
      CONSTRAINT "week_buckets_pkey" PRIMARY KEY ("member_id", "bucket", "work_type", "project_id", "goal_id"))`);
    await q.query('CREATE INDEX "week_buckets_workspace" ON "reporting"."week_buckets" ("workspace_id", "bucket")');
    await q.query(`INSERT INTO "reporting"."week_buckets"
      SELECT workspace_id, member_id, (bucket - (extract(isodow FROM bucket)::int - 1)), work_type, project_id, goal_id,
             sum(tracked_ms), sum(paused_ms), sum(session_count), sum(linked_event_count), sum(outside_session_event_count),
             sum(usage_cost), sum(input_tokens), sum(output_tokens)
        FROM "reporting"."day_buckets" GROUP BY 1, 2, 3, 4, 5, 6`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE IF EXISTS "reporting"."week_buckets"');
  }
}
