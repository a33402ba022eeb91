import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { TOKEN_ID_PATTERN } from './api-token-format';
import { MaxCodePoints } from '../input-safety';

export const MEMBER_KINDS = ['human', 'agent'] as const;
export type MemberKind = (typeof MEMBER_KINDS)[number];
export const MEMBER_ROLES = ['owner', 'admin', 'member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];
export const TOKEN_SCOPES = ['full', 'report_only'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

export class WorkingInterval {
  @Matches(HHMM, { message: 'start must be HH:MM' }) start!: string;
  @Matches(HHMM, { message: 'end must be HH:MM' }) end!: string;
}

/** D-13: `{ mon: [{ start, end }], …, sun: [] }`. */
export class WorkingHours {
  @IsArray() @ValidateNested({ each: true }) @Type(() => WorkingInterval) mon!: WorkingInterval[];
  @IsArray() @ValidateNested({ each: true }) @Type(() => WorkingInterval) tue!: WorkingInterval[];
  @IsArray() @ValidateNested({ each: true }) @Type(() => WorkingInterval) wed!: WorkingInterval[];
  @IsArray() @ValidateNested({ each: true }) @Type(() => WorkingInterval) thu!: WorkingInterval[];
  @IsArray() @ValidateNested({ each: true }) @Type(() => WorkingInterval) fri!: WorkingInterval[];
  @IsArray() @ValidateNested({ each: true }) @Type(() => WorkingInterval) sat!: WorkingInterval[];
  @IsArray() @ValidateNested({ each: true }) @Type(() => WorkingInterval) sun!: WorkingInterval[];
}

/** A member as identity publishes it (D-13 fields). */
export class MemberV1 {
  @IsUUID() memberId!: string;
  @IsUUID() workspaceId!: string;
  @IsIn(MEMBER_KINDS) kind!: MemberKind;
  @IsIn(MEMBER_ROLES) role!: MemberRole;
  @IsString() @MinLength(1) @MaxCodePoints(200) displayName!: string;
  @IsOptional() @IsEmail() email!: string | null;
  /** IANA time zone name. */
  @IsString() @MinLength(1) @MaxCodePoints(64) timezone!: string;
  @ValidateNested() @Type(() => WorkingHours) workingHours!: WorkingHours;
  @IsInt() @Min(0) @Max(1000) plateCapacity!: number;
  /**
   * Grows by one with every change of the member (1 at creation). Consumers
   * keep the highest they saw, so a late or replayed message never undoes a
   * newer one. Absent in messages written before versions existed (read as 0).
   */
  @IsOptional() @IsInt() @Min(0) version?: number;
  /** False once the member is deactivated (nothing of theirs is deleted). Absent: true. */
  @IsOptional() @IsBoolean() active?: boolean;
}

/**
 * What services need of a member to act for them (timezone, working days,
 * plate capacity), as identity knew it when the gateway resolved the
 * credential or the assignee: carried with commands so a member is usable
 * everywhere the moment identity answered, before any projection caught up.
 */
export class MemberProfileV1 {
  @IsUUID() memberId!: string;
  @IsUUID() workspaceId!: string;
  @IsIn(MEMBER_ROLES) role!: MemberRole;
  /** IANA time zone name. */
  @IsString() @MinLength(1) @MaxCodePoints(64) timezone!: string;
  @ValidateNested() @Type(() => WorkingHours) workingHours!: WorkingHours;
  @IsInt() @Min(0) @Max(1000) plateCapacity!: number;
  @IsInt() @Min(0) version!: number;
}

export const toMemberProfile = (m: MemberV1): MemberProfileV1 => ({
  memberId: m.memberId,
  workspaceId: m.workspaceId,
  role: m.role,
  timezone: m.timezone,
  workingHours: m.workingHours,
  plateCapacity: m.plateCapacity,
  version: m.version ?? 0,
});

/** Who a command acts as: the gateway's authenticated principal. */
export class ActorV1 {
  @IsUUID() memberId!: string;
  @IsUUID() workspaceId!: string;
  @IsIn(TOKEN_SCOPES) scope!: TokenScope;
  @IsIn(['api_token', 'jwt']) credential!: 'api_token' | 'jwt';
  @IsOptional() @Matches(TOKEN_ID_PATTERN) tokenId?: string;
  /** The browser session (D-40) of a session JWT identity signed. */
  @IsOptional() @IsUUID() sid?: string;
  /** The member's profile as the gateway resolved it (absent from senders that did not resolve one). */
  @IsOptional() @ValidateNested() @Type(() => MemberProfileV1) profile?: MemberProfileV1;
}

/** An API token as listed (never its secret). */
export class ApiTokenV1 {
  @Matches(TOKEN_ID_PATTERN) tokenId!: string;
  @IsString() name!: string;
  @IsIn(TOKEN_SCOPES) scope!: TokenScope;
  @IsString() createdAt!: string;
  @IsOptional() @IsString() lastUsedAt!: string | null;
  @IsOptional() @IsString() revokedAt!: string | null;
  /** D-43: when the token stops working (null: never). */
  @IsOptional() @IsString() expiresAt?: string | null;
}
