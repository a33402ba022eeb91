import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ClosedReason, SessionSource, SessionState, WorkType } from '@worktrack/contracts';

/**
 * A work session (spec "Session", D-22 … D-30). The database keeps the
 * invariants: at most one live (active or paused) session per member — a
 * partial unique index, so concurrent starts cannot both win (D-22) — a
 * closed session has a `closed_at` not before its `started_at`, a live one
 * has none. Times are stored with millisecond precision, so keyset cursors
 * on (started_at, id) are exact.
 */
@Entity({ name: 'sessions' })
@Index('ux_sessions_one_live_per_member', ['memberId'], { unique: true, where: "state IN ('active', 'paused')" })
@Index('ix_sessions_member_started', ['memberId', 'startedAt', 'id'])
@Index('ix_sessions_live_started', ['startedAt'], { where: "state IN ('active', 'paused')" })
@Check('ck_sessions_state', "state IN ('active', 'paused', 'closed')")
@Check('ck_sessions_closed_at', "(state = 'closed') = (closed_at IS NOT NULL) AND (closed_at IS NULL OR closed_at >= started_at)")
export class SessionEntity {
  /** UUIDv7: time-ordered, so the primary-key index grows at its end. */
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'workspace_id' })
  workspaceId!: string;

  @Column('uuid', { name: 'member_id' })
  memberId!: string;

  @Column('varchar', { length: 16 })
  source!: SessionSource;

  @Column('varchar', { length: 16 })
  state!: SessionState;

  @Column('varchar', { name: 'work_type', length: 16 })
  workType!: WorkType;

  @Column('varchar', { name: 'intent_text', length: 500 })
  intentText!: string;

  @Column('uuid', { name: 'goal_id', nullable: true })
  goalId!: string | null;

  @Column('uuid', { name: 'project_id', nullable: true })
  projectId!: string | null;

  /** Stored, not shown (spec "Session"). */
  @Column('uuid', { name: 'task_id', nullable: true })
  taskId!: string | null;

  /** Stored, not shown. */
  @Column('int', { name: 'estimated_duration_min', nullable: true })
  estimatedDurationMin!: number | null;

  @Column('text', { name: 'user_tags', array: true })
  userTags!: string[];

  @Column('timestamptz', { name: 'started_at' })
  startedAt!: Date;

  @Column('timestamptz', { name: 'closed_at', nullable: true })
  closedAt!: Date | null;

  /** Why it was closed (null while live, and for manual blocks, which were never live). */
  @Column('varchar', { name: 'closed_reason', length: 16, nullable: true })
  closedReason!: ClosedReason | null;

  @Column('varchar', { name: 'closing_note', length: 2000, nullable: true })
  closingNote!: string | null;

  /** Grows by one with every change; published with each change message. */
  @Column('int')
  revision!: number;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;

  /** The pauses as the statement that read or changed the session saw them (not a column; D-49). */
  pauses?: Array<{ pausedAt: Date; resumedAt: Date | null }>;
}
