import { IsInt, Max, Min } from 'class-validator';
import { DEFAULT_MAX_SESSION_DURATION_MS } from '@worktrack/contracts';
import { EnvInt, ServiceConfig } from '@worktrack/platform';

/** The sessions service's configuration (variables and defaults: apps/sessions/README.md). */
export class SessionsConfig extends ServiceConfig {
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override HTTP_PORT = 3104;

  /** D-25: the longest a session may last (live sessions are closed at `started_at` + this; manual blocks may not be longer). */
  @EnvInt()
  @IsInt()
  @Min(1_000)
  @Max(7 * 24 * 3_600_000)
  SESSION_MAX_DURATION_MS = DEFAULT_MAX_SESSION_DURATION_MS;

  /** How often the sweeper looks for live sessions past the maximum duration (D-25: closed within a minute). */
  @EnvInt()
  @IsInt()
  @Min(100)
  @Max(30_000)
  SESSION_SWEEP_INTERVAL_MS = 10_000;
}
