import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** D-39: a failed sign-in, per (email, address); five in 15 minutes refuse that pair only. */
@Entity({ name: 'sign_in_failures' })
@Index('ix_sign_in_failures_pair', ['email', 'address', 'failedAt'])
export class SignInFailureEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' })
  id!: string;

  /** Lower-cased. */
  @Column('text')
  email!: string;

  @Column('text')
  address!: string;

  @Column('timestamptz', { name: 'failed_at' })
  failedAt!: Date;
}
