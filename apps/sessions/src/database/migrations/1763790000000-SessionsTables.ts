import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createOutboxTable, dropOutboxTable } from '@worktrack/platform';

/**
 * Sessions, their pauses and idempotency keys (D-22 … D-30), the members
 * projection (time zones for D-29) and the outbox of session changes. DDL as
 * TypeORM generates it for the entities.
 */
export class SessionsTables1763790000000 implements MigrationInterface {
  name = 'SessionsTables1763790000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "sessions"."sessions" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "member_id" uuid NOT NULL, "source" character varying(16) NOT NULL, "state" character varying(16) NOT NULL, "work_type" character varying(16) NOT NULL, "intent_text" character varying(500) NOT NULL, "goal_id" uuid, "project_id" uuid, "task_id" uuid, "estimated_duration_min" integer, "user_tags" text array NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "closed_at" TIMESTAMP WITH TIME ZONE, "closed_reason" character varying(16), "closing_note" character varying(2000), "revision" integer NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "ck_sessions_closed_at" CHECK ((state = 'closed') = (closed_at IS NOT NULL) AND (closed_at IS NULL OR closed_at >= started_at)), CONSTRAINT "ck_sessions_state" CHECK (state IN ('active', 'paused', 'closed')), CONSTRAINT "PK_3238ef96f18b355b671619111bc" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "ix_sessions_live_started" ON "sessions"."sessions" ("started_at") WHERE state IN ('active', 'paused')`);
    await q.query(`CREATE INDEX "ix_sessions_member_started" ON "sessions"."sessions" ("member_id", "started_at", "id")`);
    await q.query(
      `CREATE UNIQUE INDEX "ux_sessions_one_live_per_member" ON "sessions"."sessions" ("member_id") WHERE state IN ('active', 'paused')`,
    );
    await q.query(
      `CREATE TABLE "sessions"."session_pauses" ("id" uuid NOT NULL, "session_id" uuid NOT NULL, "paused_at" TIMESTAMP WITH TIME ZONE NOT NULL, "resumed_at" TIMESTAMP WITH TIME ZONE, "reason" character varying(500), CONSTRAINT "PK_0a2451cfb09f83e5494dd460fcb" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `CREATE UNIQUE INDEX "ux_session_pauses_one_open" ON "sessions"."session_pauses" ("session_id") WHERE resumed_at IS NULL`,
    );
    await q.query(`CREATE INDEX "ix_session_pauses_session" ON "sessions"."session_pauses" ("session_id", "paused_at")`);
    await q.query(
      `CREATE TABLE "sessions"."idempotency_keys" ("member_id" uuid NOT NULL, "key" character varying(255) NOT NULL, "body_hash" character(64) NOT NULL, "session_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "pk_idempotency_keys" PRIMARY KEY ("member_id", "key"))`,
    );
    await q.query(
      `CREATE TABLE "sessions"."members" ("member_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "timezone" character varying(64) NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_7613f2f182039ec974f24a53810" PRIMARY KEY ("member_id"))`,
    );
    await q.query(
      `ALTER TABLE "sessions"."session_pauses" ADD CONSTRAINT "fk_session_pauses_session" FOREIGN KEY ("session_id") REFERENCES "sessions"."sessions"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await createOutboxTable(q, 'sessions');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'sessions');
    await q.query(`ALTER TABLE "sessions"."session_pauses" DROP CONSTRAINT "fk_session_pauses_session"`);
    await q.query(`DROP TABLE "sessions"."members"`);
    await q.query(`DROP TABLE "sessions"."idempotency_keys"`);
    await q.query(`DROP TABLE "sessions"."session_pauses"`);
    await q.query(`DROP TABLE "sessions"."sessions"`);
  }
}
