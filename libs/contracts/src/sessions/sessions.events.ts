import 'reflect-metadata';
import { IsArray, IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, MaxLength, Min } from 'class-validator';
import { defineMessage } from '../message';
import {
  CLOSED_REASONS,
  MAX_INTENT_TEXT_LENGTH,
  SESSION_SOURCES,
  SESSION_STATES,
  WORK_TYPES,
  type ClosedReason,
  type SessionSource,
  type SessionState,
  type WorkType,
} from './session';

/**
 * What happened to a session: `created` (timer or manual), `paused`,
 * `resumed`, `closed` (by its member now, or by a new timer: D-23),
 * `backdated` (closed by its member at an earlier `closed_at`: D-26),
 * `auto_closed` (the maximum duration: D-25).
 */
export const SESSION_CHANGES = ['created', 'paused', 'resumed', 'closed', 'backdated', 'auto_closed'] as const;
export type SessionChange = (typeof SESSION_CHANGES)[number];

/**
 * One change to a session, with the session's interval after it: what
 * correlation needs to link events to `[startedAt, closedAt)` (D-31).
 * Published through the sessions outbox in the transaction of the change,
 * keyed by member id (one member's changes stay in order); `revision` grows
 * by one with every change of a session, so a consumer can drop a stale or
 * repeated message.
 */
export class SessionChangedV1 {
  @IsIn(SESSION_CHANGES) change!: SessionChange;
  @IsUUID() sessionId!: string;
  @IsUUID() memberId!: string;
  @IsUUID() workspaceId!: string;
  @IsIn(SESSION_SOURCES) source!: SessionSource;
  @IsIn(SESSION_STATES) state!: SessionState;
  @IsISO8601({ strict: true }) startedAt!: string;
  @IsOptional() @IsISO8601({ strict: true }) closedAt!: string | null;
  @IsOptional() @IsIn(CLOSED_REASONS) closedReason!: ClosedReason | null;
  @IsInt() @Min(1) revision!: number;
  /** When the change was made (server clock): a pause starts, a resume ends a pause, at `changedAt`. */
  @IsISO8601({ strict: true }) changedAt!: string;
  /**
   * The session's own fields (the Session of the API), so a projection such
   * as reporting holds every session without asking the sessions service.
   * Absent in messages written before they were added.
   */
  @IsOptional() @IsIn(WORK_TYPES) workType?: WorkType;
  @IsOptional() @IsUUID() projectId?: string | null;
  @IsOptional() @IsUUID() goalId?: string | null;
  @IsOptional() @IsString() @MaxLength(MAX_INTENT_TEXT_LENGTH) intentText?: string;
  @IsOptional() @IsArray() @IsString({ each: true }) userTags?: string[];
  @IsOptional() @IsISO8601({ strict: true }) createdAt?: string;
}
export const SessionChanged = defineMessage({
  type: 'sessions.session.changed',
  version: 1,
  topic: 'sessionsEvents',
  payload: SessionChangedV1,
});
