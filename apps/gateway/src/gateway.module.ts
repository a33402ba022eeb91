import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PlatformModule, type AppLogger, type Metrics } from '@worktrack/platform';
import { AgentsController } from './agents/agents.controller';
import { AuthGuard } from './auth/auth.guard';
import { AuthModule } from './auth/auth.module';
import type { GatewayConfig } from './gateway.config';
import { MeController } from './me/me.controller';
import { RpcModule } from './rpc/rpc.module';
import { StatusController } from './status/status.controller';
import { StatusService } from './status/status.service';
import { TokensController } from './tokens/tokens.controller';

/**
 * The gateway's routes. Global guards run in this order: authentication and
 * scope (AuthGuard), then the per-member rate limit.
 */
@Module({
  imports: [RpcModule, AuthModule],
  controllers: [StatusController, MeController, TokensController, AgentsController],
  providers: [StatusService, { provide: APP_GUARD, useExisting: AuthGuard }],
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
