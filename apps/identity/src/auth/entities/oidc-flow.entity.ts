import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * D-41: a single sign-on in flight, under the SHA-256 of the browser's
 * binding cookie. Taken (deleted) by the callback, so a `state` works once.
 */
@Entity({ name: 'oidc_flows' })
@Index('ix_oidc_flows_expires', ['expiresAt'])
export class OidcFlowEntity {
  @PrimaryColumn('bytea', { name: 'binding_hash' })
  bindingHash!: Buffer;

  @Column('text')
  provider!: string;

  @Column('text')
  state!: string;

  @Column('text')
  nonce!: string;

  /** The PKCE verifier, sealed (IDENTITY_SECRET_KEYS). */
  @Column('text', { name: 'code_verifier' })
  codeVerifier!: string;

  /** A path of the app's own origin. */
  @Column('text', { name: 'return_to' })
  returnTo!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt!: Date;
}
