import type { ClosedReason, SessionSource, SessionState, WorkType } from '@worktrack/contracts';
import { SessionEntity } from './entities/session.entity';

/**
 * The sessions table as `SessionsRepository`'s statements read and write it:
 * the rows given and returned, the column lists, and the mapping of a row to
 * its entity.
 */

export interface NewSessionRow {
  id: string;
  workspaceId: string;
  memberId: string;
  source: SessionSource;
  state: SessionState;
  intentText: string;
  goalId: string | null;
  projectId: string | null;
  taskId: string | null;
  estimatedDurationMin: number | null;
  workType: WorkType;
  userTags: string[];
  startedAt: Date;
  closedAt: Date | null;
  now: Date;
}

/** A member's session: a foreign id never matches (D-27). */
export interface SessionKey {
  id: string;
  memberId: string;
  workspaceId: string;
}

export interface SessionPageQuery {
  memberId: string;
  workspaceId: string;
  state?: SessionState;
  goalId?: string;
  projectId?: string;
  /** started_at range: from inclusive, to exclusive. */
  from?: Date;
  to?: Date;
  /** Keyset: rows strictly before (started_at, id). */
  before?: { startedAt: Date; id: string };
  limit: number;
}

export interface SessionRow {
  id: string;
  workspace_id: string;
  member_id: string;
  source: SessionSource;
  state: SessionState;
  work_type: 'intentional' | 'reactive';
  intent_text: string;
  goal_id: string | null;
  project_id: string | null;
  task_id: string | null;
  estimated_duration_min: number | null;
  user_tags: string[];
  started_at: Date;
  closed_at: Date | null;
  closed_reason: ClosedReason | null;
  closing_note: string | null;
  revision: number;
  created_at: Date;
  updated_at: Date;
  /** `[paused_at, resumed_at]` pairs as JSON (absent where a statement does not select them). */
  pauses?: Array<[string, string | null]> | null;
}

export const COLUMNS = `id, workspace_id, member_id, source, state, work_type, intent_text, goal_id, project_id, task_id,
  estimated_duration_min, user_tags, started_at, closed_at, closed_reason, closing_note, revision, created_at, updated_at`;
export const LIVE = `state IN ('active', 'paused')`;
export const INSERT_COLUMNS = `id, workspace_id, member_id, source, state, work_type, intent_text, goal_id, project_id, task_id,
  estimated_duration_min, user_tags, started_at, closed_at, closed_reason, closing_note, revision, created_at, updated_at`;
/** A new session's values from `insertParams` ($1 … $15), typed so that they also serve an INSERT … SELECT. */
export const INSERT_VALUES = `$1::uuid, $2::uuid, $3::uuid, $4::varchar, $5::varchar, $14::varchar, $6::varchar, $7::uuid, $8::uuid, $9::uuid,
  $10::int, $15::text[], $11::timestamptz, $12::timestamptz, NULL, NULL, 1, $13::timestamptz, $13::timestamptz`;
export const insertParams = (s: NewSessionRow): unknown[] => [
  s.id,
  s.workspaceId,
  s.memberId,
  s.source,
  s.state,
  s.intentText,
  s.goalId,
  s.projectId,
  s.taskId,
  s.estimatedDurationMin,
  s.startedAt,
  s.closedAt,
  s.now,
  s.workType,
  s.userTags,
];
/** $n milliseconds as an interval. */
export const ms = (n: number): string => `($${n}::bigint * interval '1 millisecond')`;
/** SQLSTATE unique_violation. */
export const UNIQUE_VIOLATION = '23505';
export const isUniqueViolation = (err: unknown): boolean =>
  (err as { code?: unknown }).code === UNIQUE_VIOLATION ||
  (err as { driverError?: { code?: unknown } }).driverError?.code === UNIQUE_VIOLATION;

/** The idempotency key a start claims (D-28). */
export interface KeyClaim {
  key: string;
  bodyHash: string;
}

export const toEntity = (r: SessionRow): SessionEntity =>
  Object.assign(new SessionEntity(), {
    id: r.id,
    workspaceId: r.workspace_id,
    memberId: r.member_id,
    source: r.source,
    state: r.state,
    workType: r.work_type,
    intentText: r.intent_text,
    goalId: r.goal_id,
    projectId: r.project_id,
    taskId: r.task_id,
    estimatedDurationMin: r.estimated_duration_min,
    userTags: r.user_tags,
    startedAt: r.started_at,
    closedAt: r.closed_at,
    closedReason: r.closed_reason,
    closingNote: r.closing_note,
    revision: r.revision,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    pauses: (r.pauses ?? []).map(([pausedAt, resumedAt]) => ({
      pausedAt: new Date(pausedAt),
      resumedAt: resumedAt ? new Date(resumedAt) : null,
    })),
  });

/** TypeORM's query() answers rows, or [rows, count] when the statement is an UPDATE or DELETE. */
export function rowsOf(result: unknown): SessionRow[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as SessionRow[];
  }
  return result as SessionRow[];
}
export const entities = (result: unknown): SessionEntity[] => rowsOf(result).map(toEntity);
