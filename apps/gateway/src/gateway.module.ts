import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PlatformModule, type AppLogger, type Metrics } from '@worktrack/platform';
import { ActivityController } from './activity/activity.controller';
import { AgentsController } from './agents/agents.controller';
import { AuthGuard } from './auth/auth.guard';
import { GatewayAuthModule } from './auth/auth.module';
import { ConnectorsHttpModule } from './connectors/connectors-http.module';
import type { GatewayConfig } from './gateway.config';
import { findWebRoot, WebAppModule } from './http/web-app';
import { McpController } from './mcp/mcp.controller';
import { MeController } from './me/me.controller';
import { MembersController } from './members/members.controller';
import { ReferenceUiController } from './openapi/reference-ui';
import { RateLimitGuard } from './rate-limit/rate-limit.guard';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { PlateHttpModule } from './plate/plate-http.module';
import { RpcModule } from './rpc/rpc.module';
import { SessionsHttpModule } from './sessions/sessions-http.module';
import { WebhooksHttpModule } from './webhooks/webhooks-http.module';
import { StatusController } from './status/status.controller';
import { StatusService } from './status/status.service';
import { TokensController } from './tokens/tokens.controller';
import { InvitesController } from './sign-in/invites.controller';
import { JwksController } from './sign-in/jwks.controller';
import { OidcController } from './sign-in/oidc.controller';
import { SignInController } from './sign-in/sign-in.controller';
import { TwoFactorController } from './sign-in/two-factor.controller';
import { ModelPricesController, UsageController } from './usage/usage.controller';
import { ReportsController } from './reports/reports.controller';

/**
 * The gateway's routes, every one a controller. Global guards run in this
 * order: authentication and scope (AuthGuard), then the per-member rate
 * limit. What runs before them, and in which order, is edge/edge.ts.
 */
@Module({
  imports: [RpcModule, GatewayAuthModule, SessionsHttpModule, PlateHttpModule, ConnectorsHttpModule, WebhooksHttpModule],
  controllers: [
    StatusController,
    MeController,
    MembersController,
    TokensController,
    AgentsController,
    ActivityController,
    McpController,
    SignInController,
    OidcController,
    InvitesController,
    JwksController,
    TwoFactorController,
    UsageController,
    ModelPricesController,
    ReportsController,
  ],
  providers: [StatusService, { provide: APP_GUARD, useExisting: AuthGuard }, { provide: APP_GUARD, useExisting: RateLimitGuard }],
})
export class GatewayFeaturesModule {}

@Module({})
export class GatewayModule {
  static forRoot(config: GatewayConfig, logger: AppLogger, metrics: Metrics): DynamicModule {
    return {
      module: GatewayModule,
      // The API reference page and the web app (D-6, D-44): public pages outside /v1.
      controllers: [ReferenceUiController],
      imports: [
        PlatformModule.forRoot({ app: 'gateway', config, logger, metrics }),
        {
          // The rate limit module is imported here so its guard is registered after AuthGuard (D-5: counted after authentication).
          module: GatewayFeaturesModule,
          imports: [
            RateLimitModule.forRoot({
              redisUrl: config.REDIS_URL,
              limit: config.RATE_LIMIT_PER_MINUTE,
              keyPrefix: config.KAFKA_TOPIC_PREFIX,
              unauthenticatedLimit: config.UNAUTH_RATE_LIMIT_PER_MINUTE,
              trustedProxyHops: config.TRUSTED_PROXY_HOPS,
            }),
          ],
        },
        WebAppModule.forRoot(findWebRoot(config.WEB_ROOT)),
      ],
    };
  }
}
