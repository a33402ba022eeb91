import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ConnectorKind, ConnectorStatus } from '@worktrack/contracts';

/**
 * A connected provider account (D-36). Secrets — the webhook or signing
 * secret, the calendar feed URL, the connector's report_only API token — are
 * kept only as SecretBox ciphertext (`*_box`).
 */
@Entity({ name: 'connectors' })
@Index('ix_connectors_member', ['workspaceId', 'memberId'])
@Index('ix_connectors_creator', ['workspaceId', 'createdBy'])
@Index('ix_connectors_due_polls', ['nextPollAt'], { where: `"kind" = 'calendar' AND "deleted_at" IS NULL` })
export class ConnectorEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'workspace_id' })
  workspaceId!: string;

  @Column('uuid', { name: 'member_id' })
  memberId!: string;

  @Column('uuid', { name: 'created_by' })
  createdBy!: string;

  @Column('text')
  kind!: ConnectorKind;

  @Column('text')
  name!: string;

  @Column('text', { nullable: true })
  account!: string | null;

  @Column('text', { name: 'secret_box', nullable: true })
  secretBox!: string | null;

  @Column('text', { name: 'feed_box', nullable: true })
  feedBox!: string | null;

  /** Scheme and host of the feed, safe to show. */
  @Column('text', { name: 'feed_display', nullable: true })
  feedDisplay!: string | null;

  @Column('integer', { name: 'poll_interval_seconds', nullable: true })
  pollIntervalSeconds!: number | null;

  @Column('text', { name: 'credential_token_id' })
  credentialTokenId!: string;

  @Column('text', { name: 'credential_box' })
  credentialBox!: string;

  @Column('text', { default: 'active' })
  status!: ConnectorStatus;

  @Column('text', { name: 'last_error', nullable: true })
  lastError!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'deleted_at', nullable: true })
  deletedAt!: Date | null;

  @Column('timestamptz', { name: 'last_delivery_at', nullable: true })
  lastDeliveryAt!: Date | null;

  @Column('timestamptz', { name: 'last_polled_at', nullable: true })
  lastPolledAt!: Date | null;

  @Column('timestamptz', { name: 'next_poll_at', nullable: true })
  nextPollAt!: Date | null;

  /** A replica polling this feed holds it until then (crash-safe claim). */
  @Column('timestamptz', { name: 'poll_lease_until', nullable: true })
  pollLeaseUntil!: Date | null;

  /** The calendar instances seen so far (metadata only): the last good state of the feed. */
  @Column('jsonb', { name: 'calendar_state', nullable: true })
  calendarState!: KnownInstance[] | null;
}

/** What the calendar poller remembers of one instance of a feed (the connector's `calendar_state`). */
/** What earlier polls saw of one instance. */
export interface KnownInstance {
  key: string;
  /** For an emitted instance, the SEQUENCE of the version last emitted; else the one last seen. */
  sequence: number;
  /** Likewise, of title/start/end/status/all-day/organizer/attendee count. */
  fingerprint: string;
  /** `calendar.meeting` was emitted. */
  emitted: boolean;
  /** Last seen cancelled (or, once emitted, `calendar.meeting.cancelled` was emitted). */
  cancelled: boolean;
  /** Its (possibly moved) start, RFC 3339 UTC. */
  start: string;
}
