import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUUID, Matches, Max, Min, ValidateNested } from 'class-validator';
import { MemberV1 } from '../member';

/** A SHA-256 in lowercase hex: how a high-entropy secret (refresh, invite) travels and is stored (never the secret, D-38, D-40). */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** How the member proved who they are (RFC 8176 values) — the `amr` claim of the session JWT (D-40). */
export const AUTH_METHODS = ['pwd', 'otp', 'sso', 'invite'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

/** D-42: which members a workspace requires two-factor of. */
export const TWO_FACTOR_POLICIES = ['none', 'admins', 'all'] as const;
export type TwoFactorPolicy = (typeof TWO_FACTOR_POLICIES)[number];

/**
 * The answer to every sign-in (password, invite, SSO, refresh): a session JWT
 * and the browser session it belongs to (D-40). The refresh secret itself is
 * drawn by the gateway and never travels; identity stores only its hash.
 */
export class SignedInV1 {
  @IsString() accessToken!: string;
  @IsInt() @Min(1) @Max(600) expiresIn!: number;
  @IsUUID() sid!: string;
  @ValidateNested() @Type(() => MemberV1) member!: MemberV1;
}

/** A browser session as `GET /v1/auth/sessions` lists it (D-40). */
export class BrowserSessionV1 {
  @IsUUID() sid!: string;
  @IsString() createdAt!: string;
  @IsString() lastUsedAt!: string;
  @IsOptional() @IsString() userAgent!: string | null;
  @IsBoolean() current!: boolean;
}

export class BrowserSessionListV1 {
  @IsArray() @ValidateNested({ each: true }) @Type(() => BrowserSessionV1) sessions!: BrowserSessionV1[];
}

/** A new refresh secret, by its hash (the gateway keeps the secret for the cookie). */
export class RefreshSecretV1 {
  @Matches(SHA256_HEX) refreshSha256!: string;
}

/** A public key of the session JWTs' key set (RFC 7517, EC P-256). */
export class PublicJwkV1 {
  @IsIn(['EC']) kty!: 'EC';
  @IsIn(['P-256']) crv!: 'P-256';
  @IsString() x!: string;
  @IsString() y!: string;
  @IsString() kid!: string;
  @IsIn(['ES256']) alg!: 'ES256';
  @IsIn(['sig']) use!: 'sig';
}

/** A browser session's state as the gateway checks it for each session JWT's `sid` (D-40, D-42). */
export class BrowserSessionStateV1 {
  @IsUUID() sid!: string;
  @IsUUID() memberId!: string;
  @IsUUID() workspaceId!: string;
  @IsBoolean() active!: boolean;
  /** D-42: the workspace requires two-factor of this member and they have not enrolled: only enrolment is allowed. */
  @IsBoolean() twoFactorRequired!: boolean;
}

export const MAX_USER_AGENT = 512;
