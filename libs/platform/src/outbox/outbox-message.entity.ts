import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { TopicKey } from '@worktrack/contracts';

/**
 * One message waiting to be published: written in the same transaction as the
 * change it announces, deleted by the relay once the broker acknowledged it.
 * The table lives in the owning service's schema (its DataSource sets it);
 * `createOutboxTable` is the matching migration. The relay reads in `id`
 * order through the primary key, so no other index is needed.
 */
@Entity({ name: 'outbox' })
export class OutboxMessageEntity {
  /** bigserial: insertion order, which is the publish order. pg returns int8 as a string. */
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'outbox_pkey' })
  id!: string;

  /** The registry key (`Topics`), not the physical name: the prefix is the relay's. */
  @Column({ type: 'text' })
  topic!: TopicKey;

  @Column({ type: 'text' })
  key!: string;

  @Column({ type: 'text' })
  type!: string;

  @Column({ type: 'int' })
  version!: number;

  @Column({ name: 'message_id', type: 'uuid' })
  messageId!: string;

  @Column({ name: 'request_id', type: 'text', nullable: true })
  requestId!: string | null;

  /** The validated contract payload, as it will travel. */
  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
