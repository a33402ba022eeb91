import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, StatusModule, type ServiceRuntime } from '@worktrack/platform';
import { webhooksDatabase } from './database/data-source';
import { WebhooksFeatureModule } from './webhooks.module';

/**
 * The webhooks service (D-53 … D-56): endpoints, one message per source
 * event (sessions, plate, identity), signed deliveries with retries. Owns
 * schema `webhooks`, answers `webhooks.commands`.
 */
@Module({})
export class WebhooksAppModule {
  static register(runtime: ServiceRuntime): DynamicModule {
    return {
      module: WebhooksAppModule,
      imports: [
        PlatformModule.forRoot({ app: 'webhooks', ...runtime, database: webhooksDatabase }),
        StatusModule.forService('webhooks'),
        WebhooksFeatureModule,
      ],
    };
  }
}
