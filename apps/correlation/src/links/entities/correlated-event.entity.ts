import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** A stored event as correlation sees it, with its current link. */
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

  @CreateDateColumn({ name: 'stored_at', type: 'timestamptz' })
  storedAt!: Date;
}
