import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsIn, IsInt, IsOptional, IsString, IsUUID, Max, Min, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { UUID_PATTERN } from '../openapi/validation-schemas';
import {
  CALENDAR_DATE_PATTERN,
  IsCalendarDate as IsContractCalendarDate,
  IsDateTime as IsContractDateTime,
  MAX_CLOSING_NOTE_LENGTH,
  RFC3339_PATTERN,
  MAX_ESTIMATED_DURATION_MIN,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_INTENT_TEXT_LENGTH,
  MAX_PAUSE_REASON_LENGTH,
  MAX_SESSIONS_PAGE_SIZE,
  MAX_USER_TAG_LENGTH,
  MAX_USER_TAGS,
  SESSION_SOURCES,
  SESSION_STATES,
  WORK_TYPES,
  type SessionSource,
  type SessionState,
  type SessionV1,
  type WorkType,
  MaxCodePoints,
} from '@worktrack/contracts';

/** A UUID in any version (what `@IsUUID()` accepts), for the document. */

/**
 * The shared date rules of the contracts (a real day and time, offsets
 * within ±14:00, years kept to four digits), documented as `format`
 * and `pattern` with the property's description (a function replaces what
 * the rules would give: class-validator-jsonschema would otherwise make a
 * nullable property's custom rule a reference to `Object`).
 */
function documented(rule: PropertyDecorator, pattern: RegExp, format: 'date' | 'date-time', description: string): PropertyDecorator {
  const document = JSONSchema(() => ({ type: 'string', format, pattern: pattern.source, description }));
  return (target, key) => {
    rule(target, key);
    document(target, String(key));
  };
}
/** D-3: RFC 3339 with an offset. */
const IsDateTime = (description: string): PropertyDecorator => documented(IsContractDateTime(), RFC3339_PATTERN, 'date-time', description);
const IsCalendarDate = (description: string): PropertyDecorator =>
  documented(IsContractCalendarDate(), CALENDAR_DATE_PATTERN, 'date', description);

/** POST /sessions (spec "POST /sessions"). */
export class StartSessionDto {
  @JSONSchema({ description: 'What the member is working on.', examples: ['Fix the flaky login test'] })
  @IsString()
  @MaxCodePoints(MAX_INTENT_TEXT_LENGTH)
  intent_text!: string;

  @JSONSchema({
    description: '`timer` starts a live session now and closes the previous live one; `manual` records a finished block.',
  })
  @IsIn(SESSION_SOURCES)
  source!: SessionSource;

  @IsOptional()
  @IsUUID()
  goal_id?: string | null;

  @IsOptional()
  @IsUUID()
  task_id?: string | null;

  @IsOptional()
  @IsUUID()
  project_id?: string | null;

  @JSONSchema({ description: 'Minutes.' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_ESTIMATED_DURATION_MIN)
  estimated_duration_min?: number | null;

  @JSONSchema({ description: 'What kind of work: planned (`intentional`, the default) or answering something that came up (`reactive`).' })
  @IsOptional()
  @IsIn(WORK_TYPES)
  work_type?: WorkType | null;

  @JSONSchema({ description: 'Labels of your own: at most 20 distinct tags of 1 to 64 characters.', examples: [['billing', 'urgent']] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_USER_TAGS)
  @ArrayUnique()
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxCodePoints(MAX_USER_TAG_LENGTH, { each: true })
  user_tags?: string[] | null;

  @IsOptional()
  @IsDateTime('Required when source is `manual` (RFC 3339 with an offset); not for `timer`.')
  started_at?: string | null;

  @IsOptional()
  @IsDateTime(
    'Required when source is `manual`: after started_at, at most 1 minute in the future, at most the maximum session duration (12 hours) after started_at.',
  )
  ended_at?: string | null;

  @JSONSchema({
    description:
      'Scoped to the member and kept forever. A retry with the same key and body answers 201 with the session as it is now; another body is 409 IDEMPOTENCY_KEY_REUSED.',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxCodePoints(MAX_IDEMPOTENCY_KEY_LENGTH)
  idempotency_key?: string | null;
}

/** POST /sessions/{session_id}/pause: an optional body. */
export class PauseSessionDto {
  @JSONSchema({ description: 'Why the session is paused (stored, not shown).', examples: ['Lunch break'] })
  @IsOptional()
  @IsString()
  @MaxCodePoints(MAX_PAUSE_REASON_LENGTH)
  pause_reason?: string | null;
}

/** POST /sessions/{session_id}/close: an optional body (D-26). */
export class CloseSessionDto {
  @JSONSchema({ description: 'Stored, not shown.', examples: ['Fixed; the test was racing the session cache.'] })
  @IsOptional()
  @IsString()
  @MaxCodePoints(MAX_CLOSING_NOTE_LENGTH)
  closing_note?: string | null;

  @IsOptional()
  @IsDateTime(
    'Default now. Back-dates the close: at most 24 hours ago, not before started_at, not in the future (else 400); capped at started_at + the maximum session duration.',
  )
  closed_at?: string | null;
}

export class SessionIdParam {
  @JSONSchema({ pattern: UUID_PATTERN, description: 'The session id (a UUID).' })
  @IsUUID(undefined, { message: 'session_id must be a UUID' })
  session_id!: string;
}

/** GET /sessions (D-29). */
export class ListSessionsQueryDto {
  @IsOptional()
  @IsIn(SESSION_STATES)
  state?: SessionState;

  @IsOptional()
  @IsCalendarDate("Inclusive calendar date of started_at, in the member's profile time zone.")
  from?: string;

  @IsOptional()
  @IsCalendarDate('Inclusive, like from; not before from.')
  to?: string;

  @IsOptional()
  @IsUUID()
  goal_id?: string;

  @IsOptional()
  @IsUUID()
  project_id?: string;

  @JSONSchema({ description: 'Page size; default 50.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_SESSIONS_PAGE_SIZE)
  limit?: number;

  @JSONSchema({ description: 'Opaque; `meta.cursor` of the previous page, with the same filters.' })
  @IsOptional()
  @IsString()
  @MaxCodePoints(512)
  cursor?: string;
}

/** A session as the API shows it (spec "Session"; D-3: times in UTC with milliseconds). */
export class SessionBody {
  @ApiProperty({ format: 'uuid' })
  session_id!: string;

  @ApiProperty({ maxLength: MAX_INTENT_TEXT_LENGTH, description: 'What the member is working on.', example: 'Fix the flaky login test' })
  intent_text!: string;

  @ApiProperty({ enum: SESSION_STATES })
  state!: SessionState;

  @ApiProperty({ enum: SESSION_SOURCES })
  source!: SessionSource;

  @ApiProperty({ enum: WORK_TYPES, description: '`intentional` unless set otherwise.' })
  work_type!: WorkType;

  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  goal_id!: string | null;

  @ApiProperty({ type: 'string', format: 'uuid', nullable: true })
  project_id!: string | null;

  @ApiProperty({ format: 'date-time' })
  started_at!: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Null while the session is live.' })
  closed_at!: string | null;

  @ApiProperty({ type: [String], description: 'Default `[]`.', example: ['backend'] })
  user_tags!: string[];

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Whole seconds active, pauses excluded; up to now while live.', example: 3540 })
  tracked_seconds!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Whole seconds paused; up to now while paused.', example: 60 })
  paused_seconds!: number;
}

/** D-49: whole seconds active (pauses excluded) and paused, up to now while live. */
export function sessionDurations(s: SessionV1, now = Date.now()): { tracked_seconds: number; paused_seconds: number } {
  const end = s.closedAt ? Date.parse(s.closedAt) : now;
  const open = s.pausedSince ? Math.max(0, end - Date.parse(s.pausedSince)) : 0;
  const paused = (s.pausedMs ?? 0) + open;
  const total = Math.max(0, end - Date.parse(s.startedAt));
  return { tracked_seconds: Math.floor(Math.max(0, total - paused) / 1000), paused_seconds: Math.floor(Math.min(paused, total) / 1000) };
}

export const presentSession = (s: SessionV1): SessionBody => ({
  session_id: s.sessionId,
  intent_text: s.intentText,
  state: s.state,
  source: s.source,
  work_type: s.workType,
  goal_id: s.goalId ?? null,
  project_id: s.projectId ?? null,
  started_at: s.startedAt,
  closed_at: s.closedAt ?? null,
  user_tags: s.userTags,
  created_at: s.createdAt,
  ...sessionDurations(s),
});
