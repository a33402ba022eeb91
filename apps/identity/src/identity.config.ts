import { IsInt, Max, Min } from 'class-validator';
import { EnvInt, ServiceConfig } from '@worktrack/platform';

/** The identity service's configuration (variables and defaults: apps/identity/README.md). */
export class IdentityConfig extends ServiceConfig {
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override HTTP_PORT = 3101;
}
