import { Transform } from 'class-transformer';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
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

  /** Largest request body: 100 events of up to 32 KB each, plus JSON overhead. */
  @EnvInt()
  @IsInt()
  @Min(1024)
  BODY_LIMIT_BYTES = 4 * 1024 * 1024;

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

  /** D-5: requests per rolling minute per member. */
  @EnvInt()
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_MINUTE = 600;

  crossCheck(): string[] {
    return this.NODE_ENV === 'production' && this.JWT_SECRET === DEV_JWT_SECRET
      ? ['JWT_SECRET: the development default must not be used when NODE_ENV=production']
      : [];
  }
}

export const DEV_JWT_SECRET = 'dev-only-insecure-jwt-secret-change-me';
