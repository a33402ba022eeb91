import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { MemberRole } from '@worktrack/contracts';
import { WorkspaceEntity } from '../../members/entities/workspace.entity';

/** D-38: an invite; the link's one-time secret is stored only as its SHA-256. */
@Entity({ name: 'invites' })
@Index('ux_invites_secret', ['secretHash'], { unique: true })
@Index('ix_invites_workspace', ['workspaceId'])
export class InviteEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'workspace_id' })
  workspaceId!: string;

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_invites_workspace' })
  workspace?: WorkspaceEntity;

  /** Lower-cased. */
  @Column('text')
  email!: string;

  @Column('varchar', { length: 8 })
  role!: MemberRole;

  @Column('bytea', { name: 'secret_hash' })
  secretHash!: Buffer;

  @Column('uuid', { name: 'invited_by' })
  invitedBy!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'expires_at' })
  expiresAt!: Date;

  @Column('timestamptz', { name: 'accepted_at', nullable: true })
  acceptedAt!: Date | null;

  @Column('timestamptz', { name: 'withdrawn_at', nullable: true })
  withdrawnAt!: Date | null;
}
