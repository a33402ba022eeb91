import 'reflect-metadata';
import { IsArray, IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, MaxLength, Min } from 'class-validator';

/** The Session rules of the spec and D-22 … D-30, shared by the gateway (edge validation) and the sessions service. */
export const SESSION_STATES = ['active', 'paused', 'closed'] as const;
export type SessionState = (typeof SESSION_STATES)[number];
/** D-22: a live session is active or paused; a member has at most one. */
export const LIVE_STATES = ['active', 'paused'] as const satisfies readonly SessionState[];
/** D-30. */
export const SESSION_SOURCES = ['timer', 'manual'] as const;
export type SessionSource = (typeof SESSION_SOURCES)[number];
export const WORK_TYPES = ['intentional', 'reactive'] as const;
export type WorkType = (typeof WORK_TYPES)[number];
/** Why a session was closed (stored, not shown): a new timer (D-23), the member (D-26), the maximum duration (D-25). */
export const CLOSED_REASONS = ['new_timer', 'explicit', 'max_duration'] as const;
export type ClosedReason = (typeof CLOSED_REASONS)[number];

export const MAX_INTENT_TEXT_LENGTH = 500;
/** D-30. */
export const MAX_USER_TAGS = 20;
export const MAX_USER_TAG_LENGTH = 64;
export const MAX_PAUSE_REASON_LENGTH = 500;
export const MAX_CLOSING_NOTE_LENGTH = 2000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** estimated_duration_min: whole minutes, at most a day. */
export const MAX_ESTIMATED_DURATION_MIN = 1440;
/** D-26: how far back `closed_at` may go. */
export const MAX_CLOSE_BACKDATE_MS = 24 * 3_600_000;
/** D-24: how far ahead of the server clock a manual block's `ended_at` may be. */
export const MAX_MANUAL_FUTURE_SKEW_MS = 60_000;
/** D-25: the default maximum session duration (a deployment may configure another). */
export const DEFAULT_MAX_SESSION_DURATION_MS = 12 * 3_600_000;
/** D-29. */
export const DEFAULT_SESSIONS_PAGE_SIZE = 50;
export const MAX_SESSIONS_PAGE_SIZE = 100;
/** `from`/`to` of GET /sessions: calendar dates. */

/** A session as the API shows it (spec "Session"); the stored extras (task, estimate, pauses, closing note, why closed) stay in the service. */
export class SessionV1 {
  @IsUUID() sessionId!: string;
  @IsString() @MaxLength(MAX_INTENT_TEXT_LENGTH) intentText!: string;
  @IsIn(SESSION_STATES) state!: SessionState;
  @IsIn(SESSION_SOURCES) source!: SessionSource;
  @IsIn(WORK_TYPES) workType!: WorkType;
  @IsOptional() @IsUUID() goalId!: string | null;
  @IsOptional() @IsUUID() projectId!: string | null;
  @IsISO8601({ strict: true }) startedAt!: string;
  @IsOptional() @IsISO8601({ strict: true }) closedAt!: string | null;
  @IsArray() @IsString({ each: true }) userTags!: string[];
  @IsISO8601({ strict: true }) createdAt!: string;
  /** D-49: milliseconds spent in finished pauses (cut at the close). */
  @IsOptional() @IsInt() @Min(0) pausedMs?: number;
  /** D-49: when the open pause of a paused session began; null otherwise. */
  @IsOptional() @IsISO8601({ strict: true }) pausedSince?: string | null;
}
