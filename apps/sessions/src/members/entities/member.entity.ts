import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The sessions service's own projection of identity's members (from
 * `identity.member.changed`): just what D-29 needs, the profile time zone.
 */
@Entity({ name: 'members' })
export class SessionsMemberEntity {
  @PrimaryColumn('uuid', { name: 'member_id' })
  memberId!: string;

  @Column('uuid', { name: 'workspace_id' })
  workspaceId!: string;

  /** IANA time zone name. */
  @Column('varchar', { length: 64 })
  timezone!: string;

  /** Identity's version of the member: the projection keeps the newest. */
  @Column('integer', { default: 0 })
  version!: number;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;
}
