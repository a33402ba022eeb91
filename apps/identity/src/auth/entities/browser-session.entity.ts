import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { AuthMethod } from '@worktrack/contracts';
import { IdentityMemberEntity } from '../../members/entities/member.entity';

/** D-40: a browser session (`sid`): its session JWTs live while it does. */
@Entity({ name: 'browser_sessions' })
@Index('ix_browser_sessions_member', ['memberId'])
export class BrowserSessionEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'workspace_id' })
  workspaceId!: string;

  @Column('uuid', { name: 'member_id' })
  memberId!: string;

  @ManyToOne(() => IdentityMemberEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'member_id', foreignKeyConstraintName: 'fk_browser_sessions_member' })
  member?: IdentityMemberEntity;

  /** How the member signed in (the JWT's `amr`). */
  @Column('text', { array: true })
  amr!: AuthMethod[];

  @Column('text', { name: 'user_agent', nullable: true })
  userAgent!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'last_used_at' })
  lastUsedAt!: Date;

  /** The refresh secret stops working then, used or not. */
  @Column('timestamptz', { name: 'expires_at' })
  expiresAt!: Date;

  @Column('timestamptz', { name: 'ended_at', nullable: true })
  endedAt!: Date | null;

  /** Why it ended: logout, ended, reuse, password, deactivated. */
  @Column('varchar', { name: 'ended_reason', length: 16, nullable: true })
  endedReason!: string | null;
}
