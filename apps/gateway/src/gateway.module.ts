import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, type AppLogger, type Metrics } from '@worktrack/platform';
import type { GatewayConfig } from './gateway.config';
import { CommandClientHost } from './rpc/command-client.host';
import { StatusController } from './status/status.controller';
import { StatusService } from './status/status.service';

@Module({
  controllers: [StatusController],
  providers: [CommandClientHost, StatusService],
  exports: [CommandClientHost],
})
export class GatewayFeaturesModule {}

@Module({})
export class GatewayModule {
  static forRoot(config: GatewayConfig, logger: AppLogger, metrics: Metrics): DynamicModule {
    return {
      module: GatewayModule,
      imports: [PlatformModule.forRoot({ app: 'gateway', config, logger, metrics }), GatewayFeaturesModule],
    };
  }
}
