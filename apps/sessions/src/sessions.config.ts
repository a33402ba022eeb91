import { IsInt, Max, Min } from 'class-validator';
import { EnvInt, ServiceConfig } from '@worktrack/platform';

/** The sessions service's configuration (variables and defaults: apps/sessions/README.md). */
export class SessionsConfig extends ServiceConfig {
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override HTTP_PORT = 3104;
}
