import { IsInt, Max, Min } from 'class-validator';
import { EnvInt, ServiceConfig } from '@worktrack/platform';

/** The reporting service's configuration (variables and defaults: apps/reporting/README.md). */
export class ReportingConfig extends ServiceConfig {
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override HTTP_PORT = 3108;

  /**
   * D-52: how long a report waits at most for the projection to reach the
   * session changes and usage records the broker held when it was asked
   * (then it answers with what it has).
   */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(10_000)
  REPORT_FRESHNESS_WAIT_MS = 1_500;
}
