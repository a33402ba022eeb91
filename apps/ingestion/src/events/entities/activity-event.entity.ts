import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A stored activity event. Built for volume: ids are UUIDv7 (time-ordered, so
 * inserts append to the primary-key index), the D-15 deduplication key is a
 * partial unique index, and the timeline reads (member, occurred_at, id)
 * backwards. Partitioning: docs/adr/0006-activity-events-storage.md.
 */
@Entity({ name: 'activity_events' })
@Index('ux_activity_events_dedup', ['memberId', 'sourceType', 'externalId'], { unique: true, where: 'external_id IS NOT NULL' })
@Index('ix_activity_events_timeline', ['memberId', 'occurredAt', 'id'])
@Index('ix_activity_events_session', ['sessionId', 'occurredAt'], { where: 'session_id IS NOT NULL' })
// BRIN on received_at (the link audit's window scan; TypeORM cannot declare BRIN): migration 1764100000000.
@Index('ix_activity_events_received_brin', { synchronize: false })
export class ActivityEventEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'workspace_id' })
  workspaceId!: string;

  @Column('uuid', { name: 'member_id' })
  memberId!: string;

  @Column('varchar', { name: 'source_type', length: 64 })
  sourceType!: string;

  @Column('varchar', { name: 'event_type', length: 64 })
  eventType!: string;

  /** Millisecond precision (normalised at ingestion), so keyset cursors are exact. */
  @Column('timestamptz', { name: 'occurred_at' })
  occurredAt!: Date;

  @Column('timestamptz', { name: 'received_at' })
  receivedAt!: Date;

  @Column('jsonb')
  payload!: Record<string, unknown>;

  @Column('varchar', { name: 'external_id', length: 256, nullable: true })
  externalId!: string | null;

  /** Set by correlation's links (null until correlated, or when no session covers the event). */
  @Column('uuid', { name: 'session_id', nullable: true })
  sessionId!: string | null;

  /** The version of the link held; a link is applied only when newer (links may arrive out of order). */
  @Column('integer', { name: 'link_version', default: 0 })
  linkVersion!: number;
}
