import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Correlation's own projection of a session: its interval and the revision it came from. */
@Entity({ name: 'sessions' })
@Index('ix_sessions_member_started', ['memberId', 'startedAt'])
export class SessionIntervalEntity {
  @PrimaryColumn('uuid', { name: 'session_id' })
  sessionId!: string;

  @Column('uuid', { name: 'member_id' })
  memberId!: string;

  @Column('timestamptz', { name: 'started_at' })
  startedAt!: Date;

  /** Null while the session is live: the interval is open-ended. */
  @Column('timestamptz', { name: 'closed_at', nullable: true })
  closedAt!: Date | null;

  @Column('integer')
  revision!: number;
}
