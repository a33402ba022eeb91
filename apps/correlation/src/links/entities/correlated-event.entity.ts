import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** A stored event or usage record as correlation sees it, with its current link. */
@Entity({ name: 'events' })
@Index('ix_events_member_occurred', ['memberId', 'occurredAt'])
export class CorrelatedEventEntity {
  @PrimaryColumn('uuid', { name: 'event_id' })
  eventId!: string;

  @Column('uuid', { name: 'member_id' })
  memberId!: string;

  @Column('timestamptz', { name: 'occurred_at' })
  occurredAt!: Date;

  @Column('uuid', { name: 'session_id', nullable: true })
  sessionId!: string | null;

  /** Grows with every change of the link; travels with it so ingestion applies only newer links. */
  @Column('integer', { name: 'link_version', default: 0 })
  linkVersion!: number;

  /** 0: an activity event; 1: a usage record (D-48), whose link changes travel as UsageLinked. */
  @Column('smallint', { default: 0 })
  kind!: number;

  @CreateDateColumn({ name: 'stored_at', type: 'timestamptz' })
  storedAt!: Date;
}
