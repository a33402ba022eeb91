import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The summary revision per member instead of per workspace (ADR 0018): a row
 * per workspace, member and consumed partition, raised in the projection's
 * transaction whenever a consumed call changes what a summary reads of the
 * member. A member's revision is the count and sum of its rows, a workspace's
 * the count and sum of all its members' rows, so every committed raise changes
 * both, and each call still writes only its own partition's rows. The
 * rendered summaries keep each member's part under the member's revision, so
 * a write by one member re-renders that member's part only. Rows start from
 * the clock (microseconds), as before, so neither a replay nor this migration
 * hands out a revision a running replica has cached under.
 *
 * `workspace_revisions` stays as a view of the new rows, so a replica of the
 * previous release still reads a revision that rises with every write while a
 * rolling upgrade replaces it (its projection writes fail and are retried
 * until then: nothing is lost).
 */
export class ReportingMemberRevisions1767200000000 implements MigrationInterface {
  name = 'ReportingMemberRevisions1767200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "reporting"."member_revisions" (
      "workspace_id" uuid NOT NULL,
      "member_id" uuid NOT NULL,
      "topic" text NOT NULL,
      "partition" integer NOT NULL,
      "revision" bigint NOT NULL DEFAULT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint,
      PRIMARY KEY ("workspace_id", "member_id", "topic", "partition")
    )`);
    await q.query('DROP TABLE "reporting"."workspace_revisions"');
    await q.query(`CREATE VIEW "reporting"."workspace_revisions" AS
      SELECT workspace_id, topic, partition, revision FROM "reporting"."member_revisions"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP VIEW "reporting"."workspace_revisions"');
    await q.query('DROP TABLE "reporting"."member_revisions"');
    await q.query(`CREATE TABLE "reporting"."workspace_revisions" (
      "workspace_id" uuid NOT NULL,
      "topic" text NOT NULL,
      "partition" integer NOT NULL,
      "revision" bigint NOT NULL DEFAULT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint,
      PRIMARY KEY ("workspace_id", "topic", "partition")
    )`);
  }
}
