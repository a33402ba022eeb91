import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { defineCommand } from '../../message';
import { MAX_USER_AGENT, RefreshSecretV1, SHA256_HEX, SignedInV1 } from './browser-session';

/** D-41: a provider's id as configured (`OIDC_PROVIDERS`) and as it appears in the sign-in routes. */
export const OIDC_PROVIDER_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** A `return_to` as long as a browser would carry it. */
export const MAX_RETURN_TO = 2048;

export class SignInProviderV1 {
  @Matches(OIDC_PROVIDER_ID) id!: string;
  @IsString() @MaxLength(200) name!: string;
}

/** Who asks (for the logs); the answer is the same for everyone. */
export class SignInMethodsQueryV1 {
  @IsString() @MaxLength(64) reason!: string;
}

/** D-41: how people sign in here: the single sign-on providers, and whether password sign-in is on. */
export class SignInMethodsV1 {
  @IsArray() @ValidateNested({ each: true }) @Type(() => SignInProviderV1) providers!: SignInProviderV1[];
  @IsBoolean() passwordLogin!: boolean;
}
export const ListSignInMethods = defineCommand({
  type: 'identity.auth.sign-in-methods.list',
  version: 1,
  topic: 'identityCommands',
  payload: SignInMethodsQueryV1,
  result: SignInMethodsV1,
});

/**
 * D-41: a single sign-on starts. The gateway draws the browser binding (the
 * short-lived cookie's secret) and sends only its hash; identity keeps the
 * state, nonce and PKCE verifier under that hash and answers where to send
 * the browser.
 */
export class StartOidcSignInV1 {
  @Matches(OIDC_PROVIDER_ID) provider!: string;
  @Matches(SHA256_HEX) bindingSha256!: string;
  @IsOptional() @IsString() @MaxLength(MAX_RETURN_TO) returnTo?: string;
}

export class OidcRedirectV1 {
  /** The provider's authorization endpoint with the request's parameters. */
  @IsString() authorizationUrl!: string;
  /** How long the binding lives, in seconds (the cookie's Max-Age). */
  @IsInt() @Min(1) @Max(3600) expiresIn!: number;
}
export const StartOidcSignIn = defineCommand({
  type: 'identity.auth.oidc.start',
  version: 1,
  topic: 'identityCommands',
  payload: StartOidcSignInV1,
  result: OidcRedirectV1,
});

/**
 * D-41: the provider sent the browser back. `callbackQuery` is the query
 * string of the callback as received (code, state, iss, or error); the code is
 * useless without the PKCE verifier and client secret, which only identity holds.
 */
export class FinishOidcSignInV1 extends RefreshSecretV1 {
  @Matches(OIDC_PROVIDER_ID) provider!: string;
  @IsOptional() @Matches(SHA256_HEX) bindingSha256?: string;
  @IsString() @MaxLength(8192) callbackQuery!: string;
  @IsOptional() @IsString() @MaxLength(MAX_USER_AGENT) userAgent?: string;
}

export class OidcSignedInV1 {
  @ValidateNested() @Type(() => SignedInV1) signedIn!: SignedInV1;
  /** A path of the app's own origin (`/` when the one asked for was not). */
  @IsString() returnTo!: string;
}
export const FinishOidcSignIn = defineCommand({
  type: 'identity.auth.oidc.finish',
  version: 1,
  topic: 'identityCommands',
  payload: FinishOidcSignInV1,
  result: OidcSignedInV1,
});
