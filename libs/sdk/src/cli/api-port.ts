/**
 * What the CLI needs from the API: the commands, and one error type that says
 * how a failure should be handled (auth, refused, unavailable). The SDK
 * client implements it (sdk-api.ts); the CLI's logic depends only on this.
 */
import type {
  IngestResult,
  Member,
  PlateAssignment,
  PlateDay,
  Report,
  ReportName,
  ReportQuery,
  Session,
  StartSession,
  StoredUsage,
  UsageQuery,
  UsageResult,
} from '../client';
import type { UsageRecord } from '../usage-records';

export type { IngestResult as EventsAccepted, Member, PlateAssignment, PlateDay, Session, StoredUsage, UsageResult } from '../client';
export type { UsageRecord } from '../usage-records';

/** The ActivityEvent request object of the API, as the CLI builds and queues it. */
export interface ActivityEventInput {
  source_type?: string;
  event_type: string;
  occurred_at?: string;
  payload?: Record<string, unknown>;
  external_id?: string;
}

export interface WorktrackApi {
  sendEvents(events: ActivityEventInput[]): Promise<IngestResult>;
  me(): Promise<Member>;
  startSession(input: Omit<StartSession, 'source'>): Promise<Session>;
  /** The caller's sessions in one state, newest first (first page). */
  listSessions(state: Session['state']): Promise<Session[]>;
  sessionAction(sessionId: string, action: 'pause' | 'resume' | 'close', body?: Record<string, unknown>): Promise<Session>;
  assignPlate(input: { assignee_id: string; title: string; plate_date?: string }): Promise<PlateAssignment>;
  plate(date?: string): Promise<PlateDay>;
  reportUsage(records: UsageRecord[]): Promise<UsageResult>;
  /** The first page of the caller's usage, newest first. */
  listUsage(query: UsageQuery): Promise<StoredUsage[]>;
  /** A report's rows and meta (the sessions report: its first page). */
  report(report: ReportName, query: ReportQuery): Promise<Report<Record<string, unknown>>>;
  /** A report as CSV, every row. */
  reportCsv(report: ReportName, query: ReportQuery): Promise<string>;
}

export type ApiFailureKind = 'auth' | 'rejected' | 'unavailable' | 'unreachable';

/**
 * A failed call. `unreachable` (no HTTP answer, or 502/503/504 after
 * retries) is what the offline queue is for; `unavailable` is any other 5xx.
 */
export class ApiFailure extends Error {
  constructor(
    readonly kind: ApiFailureKind,
    message: string,
    readonly status?: number,
    readonly code?: string,
    readonly details?: Array<{ path: string; issue: string }>,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

/** How an HTTP status maps to a failure kind (everything below 400 is success). */
export function kindOfStatus(status: number): ApiFailureKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 502 || status === 503 || status === 504) return 'unreachable';
  if (status >= 500 || status === 429) return 'unavailable'; // 429 after retries: try again later

  return 'rejected';
}
