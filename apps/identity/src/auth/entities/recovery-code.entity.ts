import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { IdentityMemberEntity } from '../../members/entities/member.entity';

/** D-42: a one-time recovery code, stored as its SHA-256 only. */
@Entity({ name: 'recovery_codes' })
export class RecoveryCodeEntity {
  @PrimaryColumn('uuid', { name: 'member_id' })
  memberId!: string;

  @PrimaryColumn('bytea', { name: 'code_hash' })
  codeHash!: Buffer;

  @ManyToOne(() => IdentityMemberEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'member_id', foreignKeyConstraintName: 'fk_recovery_codes_member' })
  member?: IdentityMemberEntity;

  @Column('timestamptz', { name: 'used_at', nullable: true })
  usedAt!: Date | null;
}
