import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsISO8601, IsOptional, IsUUID, ValidateNested } from 'class-validator';
import { defineCommand } from '../message';

/** At most this many members a request (the requester chunks): the reply stays bounded by construction. */
export const MAX_COVER_MEMBERS = 100;
/**
 * At most this many sessions a member in a reply: 100 × 50 sessions of ~130
 * bytes as JSON is ~650 KB, under the reply topic's 1 MB record limit.
 */
export const MAX_COVER_SESSIONS_PER_MEMBER = 50;

/** A member's events' `occurred_at` span, both ends included. */
export class MemberRangeV1 {
  @IsUUID() memberId!: string;
  @IsISO8601({ strict: true }) from!: string;
  @IsISO8601({ strict: true }) to!: string;
}

/**
 * The sessions correlation holds that overlap each member's range: those
 * with `started_at <= to` and open or `closed_at > from`. Ingestion's link
 * audit (ADR 0016) asks, then applies D-31's rule to its own events.
 */
export class FindSessionCoverV1 {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_COVER_MEMBERS)
  @ValidateNested({ each: true })
  @Type(() => MemberRangeV1)
  members!: MemberRangeV1[];
}

export class SessionIntervalV1 {
  @IsUUID() sessionId!: string;
  @IsISO8601({ strict: true }) startedAt!: string;
  /** Null while the session is live (open-ended). */
  @IsOptional() @IsISO8601({ strict: true }) closedAt!: string | null;
}

export class MemberSessionsV1 {
  @IsUUID() memberId!: string;
  /** In `started_at` order (then session id), at most MAX_COVER_SESSIONS_PER_MEMBER. */
  @IsArray()
  @ArrayMaxSize(MAX_COVER_SESSIONS_PER_MEMBER)
  @ValidateNested({ each: true })
  @Type(() => SessionIntervalV1)
  sessions!: SessionIntervalV1[];
  /**
   * Null when `sessions` is every overlapping session. Otherwise the list was
   * cut: it is complete for instants before this one (every session left out
   * starts at or after it); ask again from here for the rest.
   */
  @IsOptional() @IsISO8601({ strict: true }) completeUntil!: string | null;
}

/** One entry per member asked about, in the request's order. */
export class SessionCoverV1 {
  @IsArray()
  @ArrayMaxSize(MAX_COVER_MEMBERS)
  @ValidateNested({ each: true })
  @Type(() => MemberSessionsV1)
  members!: MemberSessionsV1[];
}

export const FindSessionCover = defineCommand({
  type: 'correlation.sessions.cover',
  version: 1,
  topic: 'correlationCommands',
  payload: FindSessionCoverV1,
  result: SessionCoverV1,
});
