import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { ActorV1 } from '../identity/member';
import { defineCommand } from '../message';
import { IsCalendarDate, IsDateTime } from '../calendar';
import { MaxCodePoints } from '../input-safety';
import {
  MAX_CLOSING_NOTE_LENGTH,
  MAX_ESTIMATED_DURATION_MIN,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_INTENT_TEXT_LENGTH,
  MAX_PAUSE_REASON_LENGTH,
  MAX_SESSIONS_PAGE_SIZE,
  MAX_USER_TAG_LENGTH,
  MAX_USER_TAGS,
  SESSION_SOURCES,
  SESSION_STATES,
  SessionV1,
  WORK_TYPES,
  type SessionSource,
  type SessionState,
  type WorkType,
} from './session';

/**
 * POST /sessions: `timer` starts a live session now and closes the previous
 * live one at the new `startedAt` (D-23); `manual` records a finished block
 * (D-24). With an `idempotencyKey`, a retry with the same body answers the
 * session as it is now; another body is IDEMPOTENCY_KEY_REUSED (D-28).
 */
export class StartSessionV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  /** The gateway's time of receipt: with the command's message id it fixes the new session's id, so a redelivered command starts nothing twice. */
  @IsISO8601({ strict: true }) requestedAt!: string;
  @IsString() @MaxCodePoints(MAX_INTENT_TEXT_LENGTH) intentText!: string;
  @IsIn(SESSION_SOURCES) source!: SessionSource;
  @IsOptional() @IsUUID() goalId?: string;
  @IsOptional() @IsUUID() taskId?: string;
  @IsOptional() @IsUUID() projectId?: string;
  @IsOptional() @IsInt() @Min(1) @Max(MAX_ESTIMATED_DURATION_MIN) estimatedDurationMin?: number;
  /** D-30: default `intentional`. */
  @IsOptional() @IsIn(WORK_TYPES) workType?: WorkType;
  /** D-30: at most 20 distinct tags of 1..64 characters. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_USER_TAGS)
  @ArrayUnique()
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxCodePoints(MAX_USER_TAG_LENGTH, { each: true })
  userTags?: string[];
  /** Manual only, RFC 3339 with an offset. */
  @IsOptional() @IsDateTime() startedAt?: string;
  /** Manual only. */
  @IsOptional() @IsDateTime() endedAt?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxCodePoints(MAX_IDEMPOTENCY_KEY_LENGTH) idempotencyKey?: string;
}
export const StartSession = defineCommand({
  type: 'sessions.session.start',
  version: 1,
  topic: 'sessionsCommands',
  payload: StartSessionV1,
  result: SessionV1,
});

/** Pauses an active session (D-27: any other state is SESSION_STATE_CONFLICT). */
export class PauseSessionV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() sessionId!: string;
  @IsOptional() @IsString() @MaxCodePoints(MAX_PAUSE_REASON_LENGTH) pauseReason?: string;
}
export const PauseSession = defineCommand({
  type: 'sessions.session.pause',
  version: 1,
  topic: 'sessionsCommands',
  payload: PauseSessionV1,
  result: SessionV1,
});

/** Resumes a paused session (D-27). */
export class ResumeSessionV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() sessionId!: string;
}
export const ResumeSession = defineCommand({
  type: 'sessions.session.resume',
  version: 1,
  topic: 'sessionsCommands',
  payload: ResumeSessionV1,
  result: SessionV1,
});

/** Closes an active or paused session; a closed one is answered unchanged (D-26). */
export class CloseSessionV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() sessionId!: string;
  @IsOptional() @IsString() @MaxCodePoints(MAX_CLOSING_NOTE_LENGTH) closingNote?: string;
  /** Back-dates the close: within the last 24 h, not before `startedAt`, not in the future; capped at the maximum duration. */
  @IsOptional() @IsDateTime() closedAt?: string;
}
export const CloseSession = defineCommand({
  type: 'sessions.session.close',
  version: 1,
  topic: 'sessionsCommands',
  payload: CloseSessionV1,
  result: SessionV1,
});

/** D-29: the caller's sessions, newest `startedAt` first, keyset-paginated. */
export class ListSessionsV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsOptional() @IsIn(SESSION_STATES) state?: SessionState;
  /** Inclusive calendar dates of `startedAt` in the member's profile time zone. */
  @IsOptional() @IsCalendarDate() from?: string;
  @IsOptional() @IsCalendarDate() to?: string;
  @IsOptional() @IsUUID() goalId?: string;
  @IsOptional() @IsUUID() projectId?: string;
  @IsInt() @Min(1) @Max(MAX_SESSIONS_PAGE_SIZE) limit!: number;
  @IsOptional() @IsString() @MaxLength(512) cursor?: string;
}
export class SessionPageV1 {
  @IsArray() @ValidateNested({ each: true }) @Type(() => SessionV1) sessions!: SessionV1[];
  @IsOptional() @IsString() nextCursor!: string | null;
}
export const ListSessions = defineCommand({
  type: 'sessions.session.list',
  version: 1,
  topic: 'sessionsCommands',
  payload: ListSessionsV1,
  result: SessionPageV1,
});

/** At most this many session ids a question (a usage batch names at most 100). */
export const MAX_OWNED_SESSIONS_ASKED = 100;

/** Which of these sessions are the actor's own (D-45: a usage record may name only its own session). */
export class FindOwnedSessionsV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(MAX_OWNED_SESSIONS_ASKED) @IsUUID('all', { each: true }) sessionIds!: string[];
}
export class OwnedSessionsV1 {
  /** The asked ids that are sessions of the actor in its workspace, in canonical lower case. */
  @IsArray() @IsUUID('all', { each: true }) sessionIds!: string[];
}
export const FindOwnedSessions = defineCommand({
  type: 'sessions.session.owned',
  version: 1,
  topic: 'sessionsCommands',
  payload: FindOwnedSessionsV1,
  result: OwnedSessionsV1,
});
