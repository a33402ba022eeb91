import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { TokenScope } from '@worktrack/contracts';
import { IdentityMemberEntity } from '../../members/entities/member.entity';

/** D-8: an API token. Only the SHA-256 of its secret is stored. */
@Entity({ name: 'api_tokens' })
@Index('ix_api_tokens_member', ['memberId'])
export class ApiTokenEntity {
  /** The public token id: 8 lowercase base32 characters. */
  @PrimaryColumn('varchar', { length: 8 })
  id!: string;

  @Column('uuid', { name: 'workspace_id' })
  workspaceId!: string;

  @Column('uuid', { name: 'member_id' })
  memberId!: string;

  @ManyToOne(() => IdentityMemberEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'member_id', foreignKeyConstraintName: 'fk_api_tokens_member' })
  member?: IdentityMemberEntity;

  @Column('text')
  name!: string;

  @Column('varchar', { length: 16 })
  scope!: TokenScope;

  @Column('bytea', { name: 'secret_hash' })
  secretHash!: Buffer;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'last_used_at', nullable: true })
  lastUsedAt!: Date | null;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;

  /** D-43: refused from then on (null: never expires). */
  @Column('timestamptz', { name: 'expires_at', nullable: true })
  expiresAt!: Date | null;
}
