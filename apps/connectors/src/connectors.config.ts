import { IsBoolean, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { EnvBool, EnvInt, EnvString, ServiceConfig } from '@worktrack/platform';

/** A development-only key ring; refused when NODE_ENV=production. */
export const DEV_SECRET_KEYS = 'dev:ZGV2LW9ubHktaW5zZWN1cmUtY29ubmVjdG9yLWtleSE=';

/** The connectors service's configuration (variables and defaults: apps/connectors/README.md). */
export class ConnectorsConfig extends ServiceConfig {
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override HTTP_PORT = 3106;

  /**
   * The key ring that encrypts connector secrets at rest (AES-256-GCM):
   * `id:base64key[,id:base64key…]`, 32-byte keys. The first key encrypts;
   * every key decrypts, so a new key goes first and old ones stay until
   * nothing uses them (rotation).
   */
  @EnvString()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,16}:[A-Za-z0-9+/]{43}=(,[A-Za-z0-9_-]{1,16}:[A-Za-z0-9+/]{43}=)*$/, {
    message: 'must be id:base64 (32-byte keys), comma-separated',
  })
  CONNECTOR_SECRET_KEYS = DEV_SECRET_KEYS;

  /** How long a command to identity or ingestion may take before it is retried later. */
  @EnvInt()
  @IsInt()
  @Min(500)
  COMMAND_TIMEOUT_MS = 10_000;

  /** How often each replica looks for deliveries to ingest (it reacts at once to the ones it logged itself). */
  @EnvInt()
  @IsInt()
  @Min(50)
  WORK_POLL_INTERVAL_MS = 1_000;

  /** How often each replica looks for calendar feeds whose poll is due. */
  @EnvInt()
  @IsInt()
  @Min(50)
  CALENDAR_SCHEDULER_INTERVAL_MS = 5_000;

  /** Calendar polling: how far back a new feed's meetings become events, and how far ahead instances are tracked. */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(90)
  CALENDAR_LOOKBACK_DAYS = 7;

  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(366)
  CALENDAR_LOOKAHEAD_DAYS = 30;

  @EnvInt()
  @IsInt()
  @Min(1000)
  FEED_FETCH_TIMEOUT_MS = 10_000;

  @EnvInt()
  @IsInt()
  @Min(1024)
  FEED_MAX_BYTES = 5 * 1_048_576;

  /**
   * Calendar feeds on loopback, private, link-local or metadata addresses are
   * refused in every environment (server-side request forgery);
   * this explicit opt-in allows them, for local development and tests only.
   */
  @EnvBool()
  @IsBoolean()
  FEED_ALLOW_PRIVATE_HOSTS = false;

  override crossCheck(): string[] {
    const issues = super.crossCheck();
    if (this.NODE_ENV === 'production' && this.CONNECTOR_SECRET_KEYS === DEV_SECRET_KEYS) {
      issues.push('CONNECTOR_SECRET_KEYS: the development key must not be used when NODE_ENV=production');
    }
    return issues;
  }
}
