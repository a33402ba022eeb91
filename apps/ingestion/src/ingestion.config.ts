import { IsInt, Max, Min } from 'class-validator';
import { EnvInt, ServiceConfig } from '@worktrack/platform';

/** The ingestion service's configuration (variables and defaults: apps/ingestion/README.md). */
export class IngestionConfig extends ServiceConfig {
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override HTTP_PORT = 3102;

  /**
   * How often the link audit (one replica at a time) checks the links of the
   * events received since its last pass against correlation's sessions, and
   * re-announces the wrong ones (ADR 0016). 0 turns it off.
   */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  LINK_AUDIT_INTERVAL_MS = 30_000;

  /** How old (by received_at) an event must be before the audit judges its link: longer than a link normally takes. */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  LINK_AUDIT_SETTLE_MS = 20_000;
}
