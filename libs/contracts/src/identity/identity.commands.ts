import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { defineCommand } from '../message';
import { MaxCodePoints } from '../input-safety';
import { MAX_PAGE_SIZE } from '../pagination';
import { API_TOKEN_PATTERN, TOKEN_ID_PATTERN } from './api-token-format';
import {
  ActorV1,
  ApiTokenV1,
  MEMBER_KINDS,
  MEMBER_ROLES,
  MemberV1,
  TOKEN_SCOPES,
  WorkingHours,
  type MemberKind,
  type MemberRole,
  type TokenScope,
} from './member';

/**
 * Verifies an API token (D-8). The gateway sends the token id and the SHA-256
 * of the secret, never the secret itself; identity compares in constant time.
 */
export class VerifyTokenV1 {
  @Matches(TOKEN_ID_PATTERN) tokenId!: string;
  @Matches(/^[0-9a-f]{64}$/) secretSha256!: string;
}
export class VerifiedTokenV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
}
export const VerifyToken = defineCommand({
  type: 'identity.token.verify',
  version: 1,
  topic: 'identityCommands',
  payload: VerifyTokenV1,
  result: VerifiedTokenV1,
});

/** Actor-only commands share this payload. */
export class ActorOnlyV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
}

/** D-13: the member the credential acts as. */
export const GetMe = defineCommand({
  type: 'identity.me.get',
  version: 1,
  topic: 'identityCommands',
  payload: ActorOnlyV1,
  result: MemberV1,
});

/** D-10: create an API token for the caller; the full token is in the result, once. */
export class CreateTokenV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsString() @MinLength(1) @MaxCodePoints(100) name!: string;
  @IsIn(TOKEN_SCOPES) scope!: TokenScope;
  /** D-43: the token expires this many days after creation (absent: never). */
  @IsOptional() @IsInt() @Min(1) @Max(365) expiresInDays?: number;
}
export class CreatedTokenV1 extends ApiTokenV1 {
  @Matches(API_TOKEN_PATTERN) token!: string;
}
export const CreateToken = defineCommand({
  type: 'identity.token.create',
  version: 1,
  topic: 'identityCommands',
  payload: CreateTokenV1,
  result: CreatedTokenV1,
});

export class ListTokensV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  /** Page size (default DEFAULT_PAGE_SIZE); optional so requesters of before pagination keep working. */
  @IsOptional() @IsInt() @Min(1) @Max(MAX_PAGE_SIZE) limit?: number;
  @IsOptional() @IsString() @MaxLength(512) cursor?: string;
}
export class TokenListV1 {
  @IsArray() @ValidateNested({ each: true }) @Type(() => ApiTokenV1) tokens!: ApiTokenV1[];
  @IsOptional() @IsString() nextCursor?: string | null;
}
/** The caller's tokens, newest first, a page at a time. */
export const ListTokens = defineCommand({
  type: 'identity.token.list',
  version: 1,
  topic: 'identityCommands',
  payload: ListTokensV1,
  result: TokenListV1,
});

export class RevokeTokenV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @Matches(TOKEN_ID_PATTERN) tokenId!: string;
}
export const RevokeToken = defineCommand({
  type: 'identity.token.revoke',
  version: 1,
  topic: 'identityCommands',
  payload: RevokeTokenV1,
  result: ApiTokenV1,
});

/** D-43: `PATCH /v1/tokens/{token_id} { name }` renames one of the caller's tokens. */
export class RenameTokenV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @Matches(TOKEN_ID_PATTERN) tokenId!: string;
  @IsString() @MinLength(1) @MaxCodePoints(100) name!: string;
}
export const RenameToken = defineCommand({
  type: 'identity.token.rename',
  version: 1,
  topic: 'identityCommands',
  payload: RenameTokenV1,
  result: ApiTokenV1,
});

/** D-12: register an agent in the caller's workspace; its token is in the result, once. */
export class RegisterAgentV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsString() @MinLength(1) @MaxCodePoints(200) name!: string;
  @IsOptional() @IsIn(TOKEN_SCOPES) scope?: TokenScope;
}
export class RegisteredAgentV1 {
  @ValidateNested() @Type(() => MemberV1) agent!: MemberV1;
  @Matches(API_TOKEN_PATTERN) token!: string;
}
export const RegisterAgent = defineCommand({
  type: 'identity.agent.register',
  version: 1,
  topic: 'identityCommands',
  payload: RegisterAgentV1,
  result: RegisteredAgentV1,
});

/**
 * A `report_only` API token (D-9) for a connector acting as `memberId` (D-36):
 * the caller themself, or — for an owner or admin caller — another member of
 * the workspace. Listed among that member's tokens; revoking it stops the connector.
 */
export class IssueConnectorCredentialV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() memberId!: string;
  @IsString() @MinLength(1) @MaxCodePoints(100) name!: string;
}
export const IssueConnectorCredential = defineCommand({
  type: 'identity.connector-credential.issue',
  version: 1,
  topic: 'identityCommands',
  payload: IssueConnectorCredentialV1,
  result: CreatedTokenV1,
});

/**
 * The gateway resolves every credential (a session JWT's `sub`/`wid`, an API
 * token's member) and every assignee to a member that exists, is active and
 * belongs to that workspace. UNAUTHENTICATED otherwise (a foreign or missing
 * member is the same answer, D-7).
 */
export class ResolveMemberV1 {
  @IsUUID() workspaceId!: string;
  @IsUUID() memberId!: string;
}
export const ResolveMember = defineCommand({
  type: 'identity.member.resolve',
  version: 1,
  topic: 'identityCommands',
  payload: ResolveMemberV1,
  result: MemberV1,
});

/** `PATCH /v1/me`: the caller changes their own profile; absent fields are kept. */
export class UpdateMeV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  /** IANA time zone name (identity checks that it is one). */
  @IsOptional() @IsString() @MinLength(1) @MaxCodePoints(64) timezone?: string;
  @IsOptional() @ValidateNested() @Type(() => WorkingHours) workingHours?: WorkingHours;
  @IsOptional() @IsString() @MinLength(1) @MaxCodePoints(200) displayName?: string;
}
export const UpdateMe = defineCommand({
  type: 'identity.me.update',
  version: 1,
  topic: 'identityCommands',
  payload: UpdateMeV1,
  result: MemberV1,
});

/** `PATCH /v1/members/{member_id}` (owner or admin, full credential): plate capacity and role. */
export class UpdateMemberV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() memberId!: string;
  @IsOptional() @IsInt() @Min(0) @Max(1000) plateCapacity?: number;
  @IsOptional() @IsIn(MEMBER_ROLES) role?: MemberRole;
}
export const UpdateMember = defineCommand({
  type: 'identity.member.update',
  version: 1,
  topic: 'identityCommands',
  payload: UpdateMemberV1,
  result: MemberV1,
});

/** `POST /v1/members/{member_id}/deactivate` (owner or admin, full credential): idempotent. */
export class DeactivateMemberV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() memberId!: string;
}
export const DeactivateMember = defineCommand({
  type: 'identity.member.deactivate',
  version: 1,
  topic: 'identityCommands',
  payload: DeactivateMemberV1,
  result: MemberV1,
});

/** `GET /v1/members`: the workspace's members, a page at a time, oldest first (D-29 paging). */
export class ListMembersV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsOptional() @IsIn(MEMBER_KINDS) kind?: MemberKind;
  @IsOptional() @IsInt() @Min(1) @Max(MAX_PAGE_SIZE) limit?: number;
  @IsOptional() @IsString() @MaxLength(512) cursor?: string;
}
/**
 * A member as the list shows it. Owners and admins (full or read credential)
 * get every field, deactivated members included; plain members get the
 * active teammates' id, name and kind only (enough to assign to them); a
 * `report_only` credential gets only its own member (as D-52).
 */
export class ListedMemberV1 {
  @IsUUID() memberId!: string;
  @IsIn(MEMBER_KINDS) kind!: MemberKind;
  @IsString() @MinLength(1) @MaxCodePoints(200) displayName!: string;
  @IsOptional() @IsIn(MEMBER_ROLES) role?: MemberRole;
  @IsOptional() @IsString() email?: string | null;
  @IsOptional() @IsString() timezone?: string;
  @IsOptional() @IsInt() @Min(0) @Max(1000) plateCapacity?: number;
  @IsOptional() @IsBoolean() active?: boolean;
  @IsOptional() @IsString() createdAt?: string;
  /** The latest use of any of the member's API tokens or browser sessions (minute precision), null when never. */
  @IsOptional() @IsString() lastSeenAt?: string | null;
}
export class MemberListV1 {
  @IsArray() @ValidateNested({ each: true }) @Type(() => ListedMemberV1) members!: ListedMemberV1[];
  @IsOptional() @IsString() nextCursor?: string | null;
}
export const ListMembers = defineCommand({
  type: 'identity.member.list',
  version: 1,
  topic: 'identityCommands',
  payload: ListMembersV1,
  result: MemberListV1,
});
