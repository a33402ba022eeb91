import 'reflect-metadata';
import { IsBoolean, IsISO8601, IsOptional, IsString, IsUUID, Matches } from 'class-validator';
import { TOKEN_ID_PATTERN } from './api-token-format';
import { defineMessage } from '../message';
import { MemberV1 } from './member';

/**
 * A member was created or changed (key = member id): the gateway replicas'
 * credential caches follow it. Projections read `MemberState` instead.
 */
export const MemberChanged = defineMessage({ type: 'identity.member.changed', version: 1, topic: 'identityEvents', payload: MemberV1 });

/**
 * A member's whole current state on the log-compacted `identity.members`
 * (key = member id): the topic keeps at least the latest state of every
 * member forever, so a new consumer, or one whose projection was emptied,
 * rebuilds every member by reading it from the start.
 */
export const MemberState = defineMessage({ type: 'identity.member.state', version: 1, topic: 'identityMembers', payload: MemberV1 });

/** An API token was revoked: every gateway replica drops it from its cache (D-10: within 5 s). */
export class TokenRevokedV1 {
  @Matches(TOKEN_ID_PATTERN) tokenId!: string;
  @IsUUID() memberId!: string;
  @IsUUID() workspaceId!: string;
  @IsString() revokedAt!: string;
}
export const TokenRevoked = defineMessage({
  type: 'identity.token.revoked',
  version: 1,
  topic: 'identityEvents',
  payload: TokenRevokedV1,
});

/**
 * An API token's verification state on the log-compacted `identity.tokens`
 * (key = token id), written whenever a token is minted, revoked or expires
 * (D-37). Every gateway replica reads the topic from the start and keeps the
 * ids in memory, so an unknown, revoked or wrongly completed token is refused
 * without a round trip to identity. `secretCheck` is a prefix of the SHA-256
 * of the secret (hex): enough to tell a wrong secret apart, never the secret
 * nor enough to stand in for it; a match is still verified by identity.
 */
export class TokenStateV1 {
  @Matches(TOKEN_ID_PATTERN) tokenId!: string;
  @Matches(/^[0-9a-f]{16}$/) secretCheck!: string;
  @IsBoolean() revoked!: boolean;
  @IsOptional() @IsISO8601({ strict: true }) expiresAt?: string | null;
}
export const TokenState = defineMessage({ type: 'identity.token.state', version: 1, topic: 'identityTokens', payload: TokenStateV1 });
