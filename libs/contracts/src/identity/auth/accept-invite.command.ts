import 'reflect-metadata';
import { IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { defineCommand } from '../../message';
import { MaxCodePoints } from '../../input-safety';
import { MAX_USER_AGENT, RefreshSecretV1, SHA256_HEX, SignedInV1 } from './browser-session';

/** D-38: the one-time link's secret (by hash) creates the member in the inviter's workspace and signs it in (D-40). */
export class AcceptInviteV1 extends RefreshSecretV1 {
  @Matches(SHA256_HEX) secretSha256!: string;
  @Matches(SHA256_HEX) passwordDigest!: string;
  @IsOptional() @IsString() @MinLength(1) @MaxCodePoints(200) displayName?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxCodePoints(64) timezone?: string;
  @IsOptional() @IsString() @MaxLength(MAX_USER_AGENT) userAgent?: string;
}
export const AcceptInvite = defineCommand({
  type: 'identity.invite.accept',
  version: 1,
  topic: 'identityCommands',
  payload: AcceptInviteV1,
  result: SignedInV1,
});
