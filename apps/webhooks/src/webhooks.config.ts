import { IsBoolean, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { EnvBool, EnvInt, EnvString, ServiceConfig } from '@worktrack/platform';

/** A development-only key ring; refused when NODE_ENV=production. */
export const DEV_WEBHOOK_SECRET_KEYS = 'dev:ZGV2LW9ubHktaW5zZWN1cmUtd2ViaG9vay1rZXkhIT0=';

/** D-55: an endpoint failing for this long in a row is disabled (5 days). */
export const DISABLE_AFTER_MS = 5 * 86_400_000;
/** D-53: how long a rotated-out secret keeps signing (24 hours). */
export const SECRET_OVERLAP_MS = 86_400_000;
/** D-56: attempts are kept this long (30 days). */
export const RETENTION_MS = 30 * 86_400_000;

/** D-55: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h. */
export const DEFAULT_RETRY_SCHEDULE_MS = '0,5000,300000,1800000,7200000,18000000,36000000,86400000';

/** The webhooks service's configuration (variables and defaults: apps/webhooks/README.md). */
export class WebhooksConfig extends ServiceConfig {
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override HTTP_PORT = 3109;

  /**
   * The key ring that encrypts endpoint secrets at rest (AES-256-GCM):
   * `id:base64key[,id:base64key…]`, 32-byte keys; the first encrypts, every
   * key decrypts.
   */
  @EnvString()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,16}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9_-]{1,16}:[A-Za-z0-9+/]{43}=)*$/, {
    message: 'must be id:base64 (32-byte keys), comma-separated',
  })
  WEBHOOK_SECRET_KEYS = DEV_WEBHOOK_SECRET_KEYS;

  /**
   * D-53: the calendar feeds' switch. Endpoints on loopback, private,
   * link-local or metadata addresses, and plain http, are refused unless it
   * is on (local development and tests only).
   */
  @EnvBool()
  @IsBoolean()
  FEED_ALLOW_PRIVATE_HOSTS = false;

  /**
   * D-55: the delay before each attempt, comma-separated milliseconds: the
   * first is the first attempt's (0, immediately), the n-th the delay after
   * n-1 failures. Tests shorten it.
   */
  @EnvString()
  @IsString()
  @Matches(/^\d{1,10}(,\d{1,10}){0,31}$/, { message: 'must be comma-separated milliseconds' })
  WEBHOOK_RETRY_SCHEDULE_MS = DEFAULT_RETRY_SCHEDULE_MS;

  /** D-55: each retry delay varies by up to this fraction either way (±20 %). */
  @EnvString()
  @IsString()
  @Matches(/^(0(\.\d+)?|1)$/, { message: 'must be a fraction between 0 and 1' })
  WEBHOOK_RETRY_JITTER = '0.2';

  /** D-55: an attempt without a complete answer in this time fails. */
  @EnvInt()
  @IsInt()
  @Min(100)
  WEBHOOK_TIMEOUT_MS = 15_000;

  /** Attempts one replica has in flight to one endpoint at most (a slow endpoint never takes every slot). */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(100)
  WEBHOOK_ENDPOINT_CONCURRENCY = 4;

  /** Attempts one replica has in flight at most. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(10_000)
  WEBHOOK_MAX_IN_FLIGHT = 128;

  /** How often each replica looks for due attempts (it reacts at once to messages it created itself). */
  @EnvInt()
  @IsInt()
  @Min(20)
  WEBHOOK_POLL_INTERVAL_MS = 250;

  /** Consecutive failed attempts to one endpoint that open its circuit on this replica. */
  @EnvInt()
  @IsInt()
  @Min(1)
  WEBHOOK_CIRCUIT_FAILURES = 5;

  /** How long an open circuit holds an endpoint's attempts back before one probe. */
  @EnvInt()
  @IsInt()
  @Min(100)
  WEBHOOK_CIRCUIT_OPEN_MS = 30_000;

  retrySchedule(): number[] {
    return this.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map(Number);
  }

  retryJitter(): number {
    return Number(this.WEBHOOK_RETRY_JITTER);
  }

  override crossCheck(): string[] {
    const issues = super.crossCheck();
    if (this.NODE_ENV === 'production' && this.WEBHOOK_SECRET_KEYS === DEV_WEBHOOK_SECRET_KEYS) {
      issues.push('WEBHOOK_SECRET_KEYS: the development key must not be used when NODE_ENV=production');
    }
    return issues;
  }
}
