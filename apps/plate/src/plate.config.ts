import { IsInt, Max, Min } from 'class-validator';
import { EnvInt, ServiceConfig } from '@worktrack/platform';

/** The plate service's configuration (variables and defaults: apps/plate/README.md). */
export class PlateConfig extends ServiceConfig {
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override HTTP_PORT = 3105;
}
