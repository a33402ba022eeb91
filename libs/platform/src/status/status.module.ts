import { Controller, Module, type DynamicModule, type Type } from '@nestjs/common';
import { StatusQuery, type ServiceName, type StatusResultV1 } from '@worktrack/contracts';
import { ServiceConfig } from '../config/base.config';
import { APP_VERSION } from '../bootstrap/version';
import { HandleCommand } from '../transport/contract-pattern';
import { StatusRepository } from './status.repository';

/** Every service answers `system.status.query` on its command topic: the migrations applied in its schema and the database round trip. */
function statusController(service: ServiceName): Type {
  @Controller()
  class StatusController {
    constructor(
      private readonly repository: StatusRepository,
      private readonly config: ServiceConfig,
    ) {}

    @HandleCommand(StatusQuery[service])
    async status(): Promise<StatusResultV1> {
      const started = process.hrtime.bigint();
      const [migrations, databaseVersion] = await Promise.all([this.repository.appliedMigrations(), this.repository.serverVersion()]);
      const databaseLatencyMs = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
      return {
        service,
        instanceId: this.config.INSTANCE_ID,
        version: APP_VERSION,
        schema: this.repository.schema,
        migrations,
        databaseLatencyMs,
        databaseVersion,
      };
    }
  }
  return StatusController;
}

/** The status command of one service (its contract names the service's command topic). */
@Module({})
export class StatusModule {
  static forService(service: ServiceName): DynamicModule {
    return {
      module: StatusModule,
      controllers: [statusController(service)],
      providers: [StatusRepository],
    };
  }
}
