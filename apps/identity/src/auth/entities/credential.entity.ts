import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { IdentityMemberEntity } from '../../members/entities/member.entity';

/**
 * D-39, D-42: how a member signs in. The password is stored only as argon2id
 * of its digest; the TOTP secret only sealed with IDENTITY_SECRET_KEYS.
 */
@Entity({ name: 'credentials' })
export class CredentialEntity {
  @PrimaryColumn('uuid', { name: 'member_id' })
  memberId!: string;

  @OneToOne(() => IdentityMemberEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'member_id', foreignKeyConstraintName: 'fk_credentials_member' })
  member?: IdentityMemberEntity;

  /** argon2id PHC string; null for a member who signs in only by SSO. */
  @Column('text', { name: 'password_hash', nullable: true })
  passwordHash!: string | null;

  /** D-42: the confirmed TOTP secret, sealed (null: two-factor off). */
  @Column('text', { name: 'totp_secret', nullable: true })
  totpSecret!: string | null;

  /** D-42: a secret being enrolled, sealed, until confirmed. */
  @Column('text', { name: 'totp_pending', nullable: true })
  totpPending!: string | null;

  /** The last TOTP time step accepted: a code is accepted once. */
  @Column('bigint', { name: 'totp_last_step', nullable: true })
  totpLastStep!: string | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
