import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * D-28: an `idempotency_key` of POST /sessions, scoped to its member and kept
 * forever, with the SHA-256 of the request body it came with and the session
 * it created. The primary key makes concurrent retries of one key wait for
 * the first and then find its session.
 */
@Entity({ name: 'idempotency_keys' })
export class IdempotencyKeyEntity {
  @PrimaryColumn('uuid', { name: 'member_id', primaryKeyConstraintName: 'pk_idempotency_keys' })
  memberId!: string;

  @PrimaryColumn('varchar', { name: 'key', length: 255, primaryKeyConstraintName: 'pk_idempotency_keys' })
  key!: string;

  /** Hex SHA-256 of the normalised body. */
  @Column('char', { name: 'body_hash', length: 64 })
  bodyHash!: string;

  @Column('uuid', { name: 'session_id' })
  sessionId!: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;
}
