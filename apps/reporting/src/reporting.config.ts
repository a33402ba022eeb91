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

  /** The rendered-summary cache's bound per replica, in bytes of compressed documents (ADR 0018); 0 turns it off. */
  @EnvInt()
  @IsInt()
  @Min(0)
  REPORT_CACHE_BYTES = 64 * 1024 * 1024;

  /** A summary document shorter than this (bytes of its head, uncompressed) is rendered again each time rather than cached. */
  @EnvInt()
  @IsInt()
  @Min(0)
  REPORT_CACHE_MIN_BYTES = 64 * 1024;

  /**
   * A summary grouped by member first, over many members, is split into this many statements over consecutive runs
   * of member ids, run at once on their own connections (ADR 0018); 1 keeps one statement. About the database
   * host's cores: each statement keeps one busy.
   */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(8)
  REPORT_SUMMARY_STATEMENTS = 2;

  /** The fewest members each statement of a split summary reads (`REPORT_SUMMARY_STATEMENTS`): below, one statement is cheaper. */
  @EnvInt()
  @IsInt()
  @Min(1)
  REPORT_SUMMARY_MEMBERS_PER_STATEMENT = 100;
}
