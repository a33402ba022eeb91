import { Transform } from 'class-transformer';
import { IsInt, IsString, IsUrl, Matches, Max, Min } from 'class-validator';
import { AppConfig, EnvInt, EnvString } from '@worktrack/platform';

/** The gateway's configuration (variables and defaults: apps/gateway/README.md). */
export class GatewayConfig extends AppConfig {
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override HTTP_PORT = 3000;

  @EnvString()
  @Matches(/^rediss?:\/\/.+/, { message: 'must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /** How long a request waits for a service's reply before 503 UNAVAILABLE. */
  @EnvInt()
  @IsInt()
  @Min(100)
  @Max(60_000)
  REQUEST_TIMEOUT_MS = 5_000;

  /** Largest request body: 100 events of up to 32 KB each, with room for whitespace; under ingestion.commands' 8 MiB records. */
  @EnvInt()
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES = 6 * 1024 * 1024;

  /** Development default, also in .env.example; refused when NODE_ENV=production. */
  @EnvString()
  @IsString()
  JWT_SECRET = DEV_JWT_SECRET;

  /** PEM public key: when set, session JWTs are RS256 (D-11) instead of HS256 with JWT_SECRET. */
  @EnvString()
  @IsString()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.replace(/\\n/g, '\n') : value))
  JWT_PUBLIC_KEY = '';

  /** How long a verified API token is cached (revocations evict at once; D-10). */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(300_000)
  TOKEN_CACHE_TTL_MS = 30_000;

  /**
   * D-37: how long a request with an API token id the registry does not know
   * waits for the id to arrive on identity.tokens (a token minted a moment ago
   * through another replica) before it is refused.
   */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(10_000)
  TOKEN_REGISTRY_GRACE_MS = 1_000;

  /** D-5: requests per rolling minute per member. */
  @EnvInt()
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_MINUTE = 600;

  /** D-37: failed authentications (401s, unknown hooks) per rolling minute per client address before those failures are answered 429; valid credentials from the address are still served. */
  @EnvInt()
  @IsInt()
  @Min(1)
  UNAUTH_RATE_LIMIT_PER_MINUTE = 60;

  /** Reverse proxies in front of the gateway that append to X-Forwarded-For (0: the socket peer is the client). */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(10)
  TRUSTED_PROXY_HOPS = 0;

  /** Largest provider webhook body on /hooks/… (GitHub delivers up to 25 MB); the API keeps BODY_LIMIT_BYTES. */
  @EnvInt()
  @IsInt()
  @Min(1024)
  @Max(64 * 1024 * 1024)
  HOOK_BODY_LIMIT_BYTES = 25 * 1024 * 1024;

  /** How long the gateway keeps a connector's verification secret for edge checks (ADR 0011). */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(300_000)
  HOOK_SECRET_CACHE_TTL_MS = 30_000;

  /**
   * The gateway's public origin (`scheme://host[:port]`, no path), as clients
   * reach it: the default of the OpenAPI document's absolute server.
   */
  @EnvString()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false })
  @Matches(/^https?:\/\/[^/?#]+$/, { message: 'must be an origin: scheme://host[:port], without a path' })
  PUBLIC_URL = 'http://localhost:3000';

  /**
   * Browser origins allowed to call the API (CORS), comma-separated exact
   * origins such as `https://app.example.com`. Empty (the default): no CORS
   * headers at all, so browsers keep other origins out.
   */
  @EnvString()
  @Matches(/^$|^https?:\/\/[^/?#,\s]+(,https?:\/\/[^/?#,\s]+)*$/, {
    message: 'must be empty or comma-separated origins: scheme://host[:port], without a path',
  })
  CORS_ALLOWED_ORIGINS = '';

  get corsAllowedOrigins(): string[] {
    return this.CORS_ALLOWED_ORIGINS === '' ? [] : this.CORS_ALLOWED_ORIGINS.split(',');
  }

  /**
   * The API address the /mcp server's tools call with the caller's
   * credential (it is a client of the public API). Empty: this gateway itself,
   * over loopback on the port the request came in on.
   */
  @EnvString()
  @IsString()
  @Matches(/^(https?:\/\/.+)?$/, { message: 'must be empty or an http(s) URL' })
  MCP_API_URL = '';

  /**
   * D-44: the built web app (index.html and assets/) served at `/`. Empty: the
   * build's dist/web, when there is one; without it the gateway serves the API only.
   */
  @EnvString()
  @IsString()
  WEB_ROOT = '';

  /** D-38: the SMTP server invites are mailed through (`smtp://user:pass@host:port`); empty: links are only returned. */
  @EnvString()
  @Matches(/^$|^smtps?:\/\/.+/, { message: 'must be empty or an smtp:// or smtps:// URL' })
  SMTP_URL = '';

  /** The sender of invite mails. */
  @EnvString()
  @IsString()
  MAIL_FROM = 'worktrack <no-reply@worktrack.local>';

  crossCheck(): string[] {
    const problems: string[] = [];
    if (this.NODE_ENV === 'production' && this.JWT_SECRET === DEV_JWT_SECRET) {
      problems.push('JWT_SECRET: the development default must not be used when NODE_ENV=production');
    }
    if (this.NODE_ENV === 'production' && this.OPERATOR_TOKEN === '') {
      problems.push('OPERATOR_TOKEN: must be set when NODE_ENV=production (/status and /metrics are on the public port)');
    }
    return problems;
  }
}

export const DEV_JWT_SECRET = 'dev-only-insecure-jwt-secret-change-me';
