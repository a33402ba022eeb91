import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Workspaces, members and API tokens (D-7, D-8). DDL as TypeORM generates it for the entities. */
export class IdentityMembersAndTokens1763760000000 implements MigrationInterface {
  name = 'IdentityMembersAndTokens1763760000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "identity"."workspaces" ("id" uuid NOT NULL, "name" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_098656ae401f3e1a4586f47fd8e" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "ux_workspaces_name" ON "identity"."workspaces" ("name")`);
    await q.query(
      `CREATE TABLE "identity"."members" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "kind" character varying(8) NOT NULL, "role" character varying(8) NOT NULL, "display_name" text NOT NULL, "email" text, "timezone" text NOT NULL, "working_hours" jsonb NOT NULL, "plate_capacity" integer NOT NULL DEFAULT '6', "created_by" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_28b53062261b996d9c99fa12404" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `CREATE UNIQUE INDEX "ux_members_workspace_email" ON "identity"."members" ("workspace_id", "email") WHERE email IS NOT NULL`,
    );
    await q.query(
      `CREATE TABLE "identity"."api_tokens" ("id" character varying(8) NOT NULL, "workspace_id" uuid NOT NULL, "member_id" uuid NOT NULL, "name" text NOT NULL, "scope" character varying(16) NOT NULL, "secret_hash" bytea NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_c587455266b5fa8dace7194caac" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "ix_api_tokens_member" ON "identity"."api_tokens" ("member_id")`);
    await q.query(
      `ALTER TABLE "identity"."members" ADD CONSTRAINT "fk_members_workspace" FOREIGN KEY ("workspace_id") REFERENCES "identity"."workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "identity"."api_tokens" ADD CONSTRAINT "fk_api_tokens_member" FOREIGN KEY ("member_id") REFERENCES "identity"."members"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "identity"."api_tokens"`);
    await q.query(`DROP TABLE "identity"."members"`);
    await q.query(`DROP TABLE "identity"."workspaces"`);
  }
}
