import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A revision per workspace, raised in the projection's transaction whenever a
 * consumed call changes what a summary of the workspace reads (ADR 0018): the
 * rendered-summary cache keys on it, so a changed workspace never hits. It
 * starts from the clock (microseconds), so a schema emptied for a replay
 * never hands out a revision a running replica has cached under before.
 */
export class ReportingWorkspaceRevisions1765500000000 implements MigrationInterface {
  name = 'ReportingWorkspaceRevisions1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "reporting"."workspace_revisions" (
      "workspace_id" uuid PRIMARY KEY,
      "revision" bigint NOT NULL DEFAULT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE "reporting"."workspace_revisions"');
  }
}
