import { IsBoolean, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { EnvBool, EnvInt, EnvString, ServiceConfig } from '@worktrack/platform';
import { parseOidcProviders } from './auth/oidc/oidc-providers';

/** A development-only key ring for secrets identity keeps at rest; refused when NODE_ENV=production. */
export const DEV_IDENTITY_SECRET_KEYS = 'dev:ZGV2LW9ubHktaW5zZWN1cmUtaWRlbnRpdHkta2V5ISE=';

/** The identity service's configuration (variables and defaults: apps/identity/README.md). */
export class IdentityConfig extends ServiceConfig {
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override HTTP_PORT = 3101;

  /**
   * The app's public origin, as the gateway's PUBLIC_URL: the session JWTs'
   * `iss`, their `aud` (`<PUBLIC_URL>/v1`) and the base of invite links (D-38, D-40).
   */
  @EnvString()
  @Matches(/^https?:\/\/[^/?#]+$/, { message: 'must be an origin: scheme://host[:port], without a path' })
  PUBLIC_URL = 'http://localhost:3000';

  /**
   * Session-JWT signing keys (D-40): a JSON array of private EC P-256 JWKs,
   * each with a `kid`. The first signs; all are published, so a new key goes
   * first and the old one stays until its last token expired (10 minutes).
   * Empty: identity generates a key and keeps it (sealed) in its schema, so
   * every replica signs with the same one (refused in production).
   */
  @EnvString()
  @IsString()
  SESSION_SIGNING_KEYS = '';

  /**
   * Key ring that seals secrets at rest (TOTP secrets, generated signing keys;
   * AES-256-GCM): `id:base64key[,id:base64key…]`, 32-byte keys, the first
   * seals, every key opens (rotation).
   */
  @EnvString()
  @Matches(/^[A-Za-z0-9_-]{1,16}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9_-]{1,16}:[A-Za-z0-9+/]{43}=)*$/, {
    message: 'must be id:base64 (32-byte keys), comma-separated',
  })
  IDENTITY_SECRET_KEYS = DEV_IDENTITY_SECRET_KEYS;

  /** D-40: how long a session JWT lives (at most 10 minutes). */
  @EnvInt()
  @IsInt()
  @Min(30)
  @Max(600)
  SESSION_TOKEN_TTL_SECONDS = 600;

  /** How long a browser session lives without a refresh before its refresh secret stops working. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(365)
  REFRESH_IDLE_DAYS = 14;

  /** D-39: argon2id cost: memory in KiB and passes (about 100–300 ms of CPU per sign-in; docs/benchmarks.md). */
  @EnvInt()
  @IsInt()
  @Min(8192)
  @Max(1_048_576)
  ARGON2_MEMORY_KIB = 19_456;

  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(20)
  ARGON2_PASSES = 7;

  /** D-41: `false` turns password sign-in off (SSO only). */
  @EnvBool()
  @IsBoolean()
  PASSWORD_LOGIN = true;

  /**
   * D-41: single sign-on providers, a JSON array of `{ id, name, issuer,
   * client_id, client_secret, workspace, allowed_email_domains, allow_signup }`;
   * the redirect URI of each is `<PUBLIC_URL>/v1/auth/oidc/<id>/callback`.
   */
  @EnvString()
  @IsString()
  OIDC_PROVIDERS = '[]';

  override crossCheck(): string[] {
    const issues = super.crossCheck();
    if (this.NODE_ENV === 'production' && this.IDENTITY_SECRET_KEYS === DEV_IDENTITY_SECRET_KEYS) {
      issues.push('IDENTITY_SECRET_KEYS: the development key must not be used when NODE_ENV=production');
    }
    if (this.NODE_ENV === 'production' && this.SESSION_SIGNING_KEYS === '') {
      issues.push('SESSION_SIGNING_KEYS: required when NODE_ENV=production (generated keys are for development and tests)');
    }
    issues.push(...parseOidcProviders(this.OIDC_PROVIDERS, this.NODE_ENV === 'production').issues);
    return issues;
  }
}
