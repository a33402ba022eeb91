import 'reflect-metadata';
import { IsEmail, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { defineCommand } from '../../message';
import { MAX_USER_AGENT, RefreshSecretV1, SHA256_HEX, SignedInV1 } from './browser-session';

/**
 * D-39: password sign-in. The gateway never sends the password: it sends its
 * digest (`passwordDigest`, see password-digest.ts), which identity stores
 * only under argon2id. `address` is the client address: failures are limited
 * per (email, address).
 */
export class SignInV1 extends RefreshSecretV1 {
  @IsEmail() @MaxLength(320) email!: string;
  @Matches(SHA256_HEX) passwordDigest!: string;
  @IsOptional() @Matches(/^\d{6}$/) totpCode?: string;
  @IsOptional() @Matches(SHA256_HEX) recoveryCodeSha256?: string;
  @IsString() @MaxLength(64) address!: string;
  @IsOptional() @IsString() @MaxLength(MAX_USER_AGENT) userAgent?: string;
}
export const SignIn = defineCommand({
  type: 'identity.auth.sign-in',
  version: 1,
  topic: 'identityCommands',
  payload: SignInV1,
  result: SignedInV1,
});
