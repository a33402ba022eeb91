import 'reflect-metadata';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { defineCommand } from '../../message';
import { MAX_USER_AGENT, RefreshSecretV1, SHA256_HEX, SignedInV1 } from './browser-session';

/**
 * D-40: the refresh cookie's secret (by hash) for a new session JWT; the
 * secret rotates to `refreshSha256`. A rotated-out secret ends its session.
 */
export class RefreshBrowserSessionV1 extends RefreshSecretV1 {
  @Matches(SHA256_HEX) presentedSha256!: string;
  @IsOptional() @IsString() @MaxLength(MAX_USER_AGENT) userAgent?: string;
}
export const RefreshBrowserSession = defineCommand({
  type: 'identity.auth.refresh',
  version: 1,
  topic: 'identityCommands',
  payload: RefreshBrowserSessionV1,
  result: SignedInV1,
});
