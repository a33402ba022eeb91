import { hostname } from 'node:os';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsString, Matches, Max, Min, MinLength, ValidateIf } from 'class-validator';
import { EnvBool, EnvInt, EnvString } from './env.decorators';

export const NODE_ENVS = ['development', 'test', 'production'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

/** Variables every app reads. Each app subclass sets its own HTTP_PORT default. */
export class AppConfig {
  @EnvString()
  @IsIn(NODE_ENVS)
  NODE_ENV: NodeEnv = 'development';

  @EnvString()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  HTTP_PORT = 3000;

  /** Comma-separated host:port list. */
  @EnvString()
  @Matches(/^[^\s,:]+:\d+(,[^\s,:]+:\d+)*$/, { message: 'must be a comma-separated list of host:port' })
  KAFKA_BROKERS = '127.0.0.1:9092';

  /** Prepended to every topic and consumer group (tests use one per run). */
  @EnvString()
  @Matches(/^[a-zA-Z0-9._-]*$/, { message: 'may only hold letters, digits, dot, underscore and hyphen' })
  KAFKA_TOPIC_PREFIX = '';

  /**
   * How often a replica looks for the private consumer groups (reply and
   * broadcast feeds) of replicas that are gone; one Empty for two passes is
   * deleted. 0 turns the janitor off.
   */
  @EnvInt()
  @IsInt()
  @Min(0)
  KAFKA_GROUP_JANITOR_INTERVAL_MS = 30_000;

  /** How long SIGTERM may take to drain before the process exits anyway. */
  @EnvInt()
  @IsInt()
  @Min(1000)
  SHUTDOWN_TIMEOUT_MS = 15_000;

  /** Names this process in logs, metrics and request/reply routing. */
  @EnvString()
  @IsString()
  @IsNotEmpty()
  INSTANCE_ID = `${hostname()}-${process.pid}`;

  /**
   * Tracing: the OTLP/HTTP collector's base URL (the exporter posts to
   * `<url>/v1/traces`). Empty turns tracing off: nothing is loaded or patched.
   * Read by the tracing preload before the config (`@worktrack/platform/tracing`);
   * listed here so that a malformed value fails at start-up.
   */
  @EnvString()
  @Matches(/^$|^https?:\/\/\S+$/, { message: 'must be empty or an http(s) URL' })
  OTEL_EXPORTER_OTLP_ENDPOINT = '';

  /** Which spans are kept (OpenTelemetry's standard names); the parent's decision wins for a continued trace. */
  @EnvString()
  @IsIn(['', 'always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'])
  OTEL_TRACES_SAMPLER = '';

  /** The ratio for the `traceidratio` samplers, 0 to 1 (empty: 1). */
  @EnvString()
  @Matches(/^$|^(0(\.\d+)?|1(\.0+)?)$/, { message: 'must be a ratio between 0 and 1' })
  OTEL_TRACES_SAMPLER_ARG = '';

  /**
   * Operator credential for /metrics (and the gateway's /status): when set,
   * those answer only to `Authorization: Bearer <OPERATOR_TOKEN>`. Empty
   * leaves them open (development); the gateway refuses to start in
   * production without it.
   */
  @EnvString()
  @ValidateIf((c: AppConfig) => c.OPERATOR_TOKEN !== '')
  @IsString()
  @MinLength(16)
  OPERATOR_TOKEN = '';

  get brokers(): string[] {
    return this.KAFKA_BROKERS.split(',');
  }
}

/** Variables of the apps that own a Postgres schema. */
export class ServiceConfig extends AppConfig {
  @EnvString()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'must be a postgres:// URL' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/worktrack';

  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 10;

  /** Signs pagination cursors (D-21, D-29); the development default is refused in production. */
  @EnvString()
  @IsString()
  @MinLength(16)
  CURSOR_SECRET = DEV_CURSOR_SECRET;

  crossCheck(): string[] {
    return this.NODE_ENV === 'production' && this.CURSOR_SECRET === DEV_CURSOR_SECRET
      ? ['CURSOR_SECRET: the development default must not be used when NODE_ENV=production']
      : [];
  }

  /** Development and tests migrate at start; production runs `main.js migrate` as its own step. */
  @EnvBool()
  @IsBoolean()
  MIGRATE_ON_START = false;
}

export const DEV_CURSOR_SECRET = 'dev-only-insecure-cursor-secret';
