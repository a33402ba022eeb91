import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutboxTable, dropOutboxTable } from '@worktrack/platform';

/** Correlation's session projection, its view of stored events with their links, and its outbox (D-31). */
export class CorrelationLinks1763810000000 implements MigrationInterface {
  name = 'CorrelationLinks1763810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "correlation"."sessions" ("session_id" uuid NOT NULL, "member_id" uuid NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "closed_at" TIMESTAMP WITH TIME ZONE, "revision" integer NOT NULL, CONSTRAINT "PK_9340188c93349808f10d1db74a8" PRIMARY KEY ("session_id"))`,
    );
    await q.query(`CREATE INDEX "ix_sessions_member_started" ON "correlation"."sessions" ("member_id", "started_at")`);
    await q.query(
      `CREATE TABLE "correlation"."events" ("event_id" uuid NOT NULL, "member_id" uuid NOT NULL, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "session_id" uuid, "link_version" integer NOT NULL DEFAULT '0', "stored_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1b77463a4487f09e798dffcb43a" PRIMARY KEY ("event_id"))`,
    );
    await q.query(`CREATE INDEX "ix_events_member_occurred" ON "correlation"."events" ("member_id", "occurred_at")`);
    await createOutboxTable(q, 'correlation');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'correlation');
    await q.query(`DROP TABLE "correlation"."events"`);
    await q.query(`DROP TABLE "correlation"."sessions"`);
  }
}
