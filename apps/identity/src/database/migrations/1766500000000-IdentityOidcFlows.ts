import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * D-41: single sign-ons in flight, by the hash of the browser's binding
 * cookie (state, nonce, the sealed PKCE verifier, where to go back to).
 * DDL as TypeORM generates it for the entity.
 */
export class IdentityOidcFlows1766500000000 implements MigrationInterface {
  name = 'IdentityOidcFlows1766500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "oidc_flows" ("binding_hash" bytea NOT NULL, "provider" text NOT NULL, "state" text NOT NULL, "nonce" text NOT NULL, "code_verifier" text NOT NULL, "return_to" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_e1758b2872e23cb624c36455c60" PRIMARY KEY ("binding_hash"))`,
    );
    await q.query(`CREATE INDEX "ix_oidc_flows_expires" ON "oidc_flows" ("expires_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "identity"."ix_oidc_flows_expires"`);
    await q.query(`DROP TABLE "identity"."oidc_flows"`);
  }
}
