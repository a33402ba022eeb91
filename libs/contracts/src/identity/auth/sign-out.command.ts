import 'reflect-metadata';
import { IsBoolean, IsOptional, IsUUID, Matches } from 'class-validator';
import { defineCommand } from '../../message';
import { SHA256_HEX } from './browser-session';

/** D-40: `POST /v1/auth/logout` ends the browser session whose refresh secret (by hash) the cookie holds. */
export class SignOutV1 {
  @Matches(SHA256_HEX) presentedSha256!: string;
}
export class SignedOutV1 {
  @IsBoolean() ended!: boolean;
  /** The session that ended (the gateway that ended it refuses its JWTs at once). */
  @IsOptional() @IsUUID() sid?: string;
}
export const SignOut = defineCommand({
  type: 'identity.auth.sign-out',
  version: 1,
  topic: 'identityCommands',
  payload: SignOutV1,
  result: SignedOutV1,
});
