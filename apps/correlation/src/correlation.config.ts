import { IsInt, Max, Min } from 'class-validator';
import { EnvInt, ServiceConfig } from '@worktrack/platform';

/** The correlation service's configuration (variables and defaults: apps/correlation/README.md). */
export class CorrelationConfig extends ServiceConfig {
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override HTTP_PORT = 3103;
}
