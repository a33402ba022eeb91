import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { SessionEntity } from './session.entity';

/**
 * One paused interval of a session `[paused_at, resumed_at)`, with the
 * optional reason (stored, not shown). At most one is open per session; a
 * close ends the open one at the session's `closed_at`.
 */
@Entity({ name: 'session_pauses' })
@Index('ix_session_pauses_session', ['sessionId', 'pausedAt'])
@Index('ux_session_pauses_one_open', ['sessionId'], { unique: true, where: 'resumed_at IS NULL' })
export class SessionPauseEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'session_id' })
  sessionId!: string;

  @ManyToOne(() => SessionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'session_id', foreignKeyConstraintName: 'fk_session_pauses_session' })
  session?: SessionEntity;

  @Column('timestamptz', { name: 'paused_at' })
  pausedAt!: Date;

  @Column('timestamptz', { name: 'resumed_at', nullable: true })
  resumedAt!: Date | null;

  @Column('varchar', { length: 500, nullable: true })
  reason!: string | null;
}
