import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { CALENDAR_DATE_PATTERN } from '../calendar';
import { ActorV1, MEMBER_KINDS, type MemberKind } from '../identity/member';
import { defineCommand } from '../message';
import { WORK_TYPES, type WorkType } from '../sessions/session';

/** D-50: the reports and what a summary may be grouped by (at most two). */
export const REPORT_KINDS = ['summary', 'sessions', 'activity', 'plate'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
export const REPORT_GROUP_BYS = ['member', 'member_kind', 'work_type', 'project', 'goal', 'day', 'week'] as const;
export type ReportGroupBy = (typeof REPORT_GROUP_BYS)[number];
export const MAX_REPORT_GROUP_BYS = 2;
/** D-50: `from` … `to` spans at most this many days. */
export const MAX_REPORT_DAYS = 366;
/** D-51: the sessions report's page sizes (D-29). */
export const DEFAULT_REPORT_PAGE_SIZE = 50;
export const MAX_REPORT_PAGE_SIZE = 100;
/** The metrics of every summary row and of its totals (D-50), in the CSV's column order. */
export const SUMMARY_METRICS = [
  'tracked_seconds',
  'paused_seconds',
  'session_count',
  'linked_event_count',
  'outside_session_event_count',
  'usage_cost',
  'input_tokens',
  'output_tokens',
] as const;

/** The documents a summary is answered as (D-50, D-51). */
export const REPORT_FORMATS = ['json', 'csv'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** The filters every report takes (D-50, D-51). */
export class ReportFiltersV1 {
  @IsOptional() @IsUUID() memberId?: string;
  @IsOptional() @IsIn(MEMBER_KINDS) memberKind?: MemberKind;
  @IsOptional() @IsIn(WORK_TYPES) workType?: WorkType;
  @IsOptional() @IsUUID() projectId?: string;
  @IsOptional() @IsUUID() goalId?: string;
}

/**
 * One report for the actor (D-50 … D-52): the gateway has checked the
 * parameters (dates, span, zone, group-bys); the reporting service applies
 * who sees what, waits until its projection holds every write answered
 * before `asOf`, and answers the rows.
 */
export class GetReportV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsIn(REPORT_KINDS) report!: ReportKind;
  @Matches(CALENDAR_DATE_PATTERN) from!: string;
  @Matches(CALENDAR_DATE_PATTERN) to!: string;
  /** IANA zone the days are cut in. */
  @IsString() tz!: string;
  @IsArray() @ArrayMaxSize(MAX_REPORT_GROUP_BYS) @IsIn(REPORT_GROUP_BYS, { each: true }) groupBy!: ReportGroupBy[];
  @ValidateNested() @Type(() => ReportFiltersV1) filters!: ReportFiltersV1;
  /** The sessions report's page (D-29); absent: the first. */
  @IsOptional() @IsString() cursor?: string;
  @IsOptional() @IsInt() @Min(1) @Max(10_000) limit?: number;
  /** The summary's document: the JSON body (absent: json) or the CSV. */
  @IsOptional() @IsIn(REPORT_FORMATS) format?: ReportFormat;
}

/** A report's rows as the API shows them (snake_case fields), its `meta`, and the next page's cursor (sessions report). */
export class ReportV1 {
  /** Empty when the summary's groups come as `columns`. */
  @IsArray() @IsObject({ each: true }) rows!: Array<Record<string, unknown>>;
  /**
   * The summary as the API's own document (D-50, D-51), whole: the JSON body
   * `{ data, meta }` (`summaryDocumentJson`) or, when `format` is `csv`, the
   * CSV (`summaryCsv`), gzip-compressed and base64-encoded. A year of a large
   * workspace is megabytes of repetitive JSON: compressed it crosses Kafka as
   * a small message, and the gateway passes the bytes through (as
   * `Content-Encoding: gzip` when the client accepts it) without parsing or
   * rebuilding 26,500 row objects. Absent for the other reports.
   */
  @IsOptional() @IsString() body?: string;
  @IsString() asOf!: string;
  /** D-50: the summary's totals. */
  @IsOptional() @IsObject() totals?: Record<string, unknown>;
  @IsOptional() @IsString() nextCursor?: string | null;
}

export const GetReport = defineCommand({
  type: 'reporting.report.get',
  version: 1,
  topic: 'reportingCommands',
  payload: GetReportV1,
  result: ReportV1,
});
