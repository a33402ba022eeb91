import 'reflect-metadata';
import { IsString, IsUUID, Matches } from 'class-validator';
import { TOKEN_ID_PATTERN } from './api-token-format';
import { defineMessage } from '../message';
import { MemberV1 } from './member';

/** A member was created or changed (consumers keep their own projection; key = member id). */
export const MemberChanged = defineMessage({ type: 'identity.member.changed', version: 1, topic: 'identityEvents', payload: MemberV1 });

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
