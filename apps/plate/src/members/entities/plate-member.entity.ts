import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { WorkingHours } from '@worktrack/contracts';

/**
 * What the plate knows about a member, kept from identity's
 * `identity.member.changed` messages (never read from identity's tables).
 */
@Entity({ name: 'members' })
export class PlateMemberEntity {
  @PrimaryColumn('uuid', { name: 'member_id' })
  memberId!: string;

  @Column('uuid', { name: 'workspace_id' })
  workspaceId!: string;

  /** IANA time zone name. */
  @Column('text')
  timezone!: string;

  @Column('jsonb', { name: 'working_hours' })
  workingHours!: WorkingHours;

  @Column('integer', { name: 'plate_capacity' })
  plateCapacity!: number;

  /** Identity's version of the member: the projection keeps the newest. */
  @Column('integer', { default: 0 })
  version!: number;

  /** False once identity deactivated the member: no new item may be assigned to them. */
  @Column('boolean', { default: true })
  active!: boolean;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
