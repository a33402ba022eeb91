import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { MemberKind, MemberRole, WorkingHours } from '@worktrack/contracts';
import { WorkspaceEntity } from './workspace.entity';

/** D-7: a workspace's member, human or agent. Emails are stored lower-cased. */
@Entity({ name: 'members' })
@Index('ux_members_workspace_email', ['workspaceId', 'email'], { unique: true, where: 'email IS NOT NULL' })
export class IdentityMemberEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'workspace_id' })
  workspaceId!: string;

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_members_workspace' })
  workspace?: WorkspaceEntity;

  @Column('varchar', { length: 8 })
  kind!: MemberKind;

  @Column('varchar', { length: 8 })
  role!: MemberRole;

  @Column('text', { name: 'display_name' })
  displayName!: string;

  @Column('text', { nullable: true })
  email!: string | null;

  /** IANA time zone name. */
  @Column('text')
  timezone!: string;

  @Column('jsonb', { name: 'working_hours' })
  workingHours!: WorkingHours;

  /** D-32: items per day on the member's plate. */
  @Column('integer', { name: 'plate_capacity', default: 6 })
  plateCapacity!: number;

  /** Grows by one with every change (1 at creation); published with the member. */
  @Column('integer', { default: 1 })
  version!: number;

  /** Set once the member is deactivated: credentials stop working, nothing is deleted. */
  @Column('timestamptz', { name: 'deactivated_at', nullable: true })
  deactivatedAt!: Date | null;

  /** For agents: the member who registered it. */
  @Column('uuid', { name: 'created_by', nullable: true })
  createdBy!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
