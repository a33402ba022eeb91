import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A revision per workspace and consumed partition, raised in the projection's
 * transaction whenever a consumed call changes what a summary of the workspace
 * reads (ADR 0018). A workspace's revision is the count and the sum of its
 * rows: every committed raise changes it, and each call writes only its own
 * partition's rows, so concurrent calls never queue on one row. The rendered-
 * summary cache keys on it, so a changed workspace never hits. A row starts
 * from the clock (microseconds), so a schema emptied for a replay never hands
 * out a revision a running replica has cached under before.
 */
export class ReportingWorkspaceRevisions1765500000000 implements MigrationInterface {
  name = 'ReportingWorkspaceRevisions1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "reporting"."workspace_revisions" (
      "workspace_id" uuid NOT NULL,
      "topic" text NOT NULL,
      "partition" integer NOT NULL,
      "revision" bigint NOT NULL DEFAULT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint,
      PRIMARY KEY ("workspace_id", "topic", "partition")
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE "reporting"."workspace_revisions"');
  }
}
