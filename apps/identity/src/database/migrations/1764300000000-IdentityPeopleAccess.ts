import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * People's access (D-38 … D-43): passwords and TOTP secrets (credentials),
 * browser sessions with their refresh secrets (hashes only), invites (hashes
 * only), recovery codes (hashes only), generated signing keys (sealed),
 * sign-in failures per (email, address), the workspace's two-factor policy
 * and API token expiry. DDL as TypeORM generates it for the entities.
 */
export class IdentityPeopleAccess1764300000000 implements MigrationInterface {
  name = 'IdentityPeopleAccess1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "browser_sessions" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "member_id" uuid NOT NULL, "amr" text array NOT NULL, "user_agent" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "ended_at" TIMESTAMP WITH TIME ZONE, "ended_reason" character varying(16), CONSTRAINT "PK_62bb0057d5bf51b68d790563ba3" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "ix_browser_sessions_member" ON "browser_sessions" ("member_id")`);
    await q.query(
      `CREATE TABLE "credentials" ("member_id" uuid NOT NULL, "password_hash" text, "totp_secret" text, "totp_pending" text, "totp_last_step" bigint, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_90e8edc327fda4dcbc1ee809941" PRIMARY KEY ("member_id"))`,
    );
    await q.query(
      `CREATE TABLE "invites" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "email" text NOT NULL, "role" character varying(8) NOT NULL, "secret_hash" bytea NOT NULL, "invited_by" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "accepted_at" TIMESTAMP WITH TIME ZONE, "withdrawn_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_aa52e96b44a714372f4dd31a0af" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "ix_invites_workspace" ON "invites" ("workspace_id")`);
    await q.query(`CREATE UNIQUE INDEX "ux_invites_secret" ON "invites" ("secret_hash")`);
    await q.query(
      `CREATE TABLE "recovery_codes" ("member_id" uuid NOT NULL, "code_hash" bytea NOT NULL, "used_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_d238e39b25dda1d5c9e0c1b5bcb" PRIMARY KEY ("member_id", "code_hash"))`,
    );
    await q.query(
      `CREATE TABLE "refresh_secrets" ("secret_hash" bytea NOT NULL, "session_id" uuid NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "rotated_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_86513046e9c184507375e886e9f" PRIMARY KEY ("secret_hash"))`,
    );
    await q.query(`CREATE INDEX "ix_refresh_secrets_session" ON "refresh_secrets" ("session_id")`);
    await q.query(
      `CREATE TABLE "sign_in_failures" ("id" BIGSERIAL NOT NULL, "email" text NOT NULL, "address" text NOT NULL, "failed_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_fa4e2048c06590424ef01bfd171" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "ix_sign_in_failures_pair" ON "sign_in_failures" ("email", "address", "failed_at")`);
    await q.query(
      `CREATE TABLE "signing_keys" ("kid" text NOT NULL, "private_jwk" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_13362ac3e792c69417e1a53d355" PRIMARY KEY ("kid"))`,
    );
    await q.query(`ALTER TABLE "workspaces" ADD "require_two_factor" character varying(8) NOT NULL DEFAULT 'none'`);
    await q.query(`ALTER TABLE "api_tokens" ADD "expires_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(
      `ALTER TABLE "browser_sessions" ADD CONSTRAINT "fk_browser_sessions_member" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "credentials" ADD CONSTRAINT "fk_credentials_member" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "invites" ADD CONSTRAINT "fk_invites_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "recovery_codes" ADD CONSTRAINT "fk_recovery_codes_member" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "refresh_secrets" ADD CONSTRAINT "fk_refresh_secrets_session" FOREIGN KEY ("session_id") REFERENCES "browser_sessions"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "identity"."api_tokens" DROP COLUMN "expires_at"`);
    await q.query(`ALTER TABLE "identity"."workspaces" DROP COLUMN "require_two_factor"`);
    await q.query(`DROP TABLE "identity"."sign_in_failures"`);
    await q.query(`DROP TABLE "identity"."signing_keys"`);
    await q.query(`DROP TABLE "identity"."recovery_codes"`);
    await q.query(`DROP TABLE "identity"."invites"`);
    await q.query(`DROP TABLE "identity"."refresh_secrets"`);
    await q.query(`DROP TABLE "identity"."browser_sessions"`);
    await q.query(`DROP TABLE "identity"."credentials"`);
  }
}
