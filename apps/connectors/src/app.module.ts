import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, StatusModule, type ServiceRuntime } from '@worktrack/platform';
import { CalendarModule } from './calendar/calendar.module';
import { ConnectorsModule } from './connectors/connectors.module';
import { connectorsDatabase } from './database/data-source';
import { ConnectorsWebhooksModule } from './webhooks/webhooks.module';

/**
 * The connectors service (D-36): GitHub and Slack webhooks and ICS calendar
 * feeds, mapped to ActivityEvents and written through ingestion as the
 * connected member. Owns schema `connectors`, answers `connectors.commands`,
 * sends commands with replies on `connectors.replies`.
 */
@Module({})
export class ConnectorsAppModule {
  static register(runtime: ServiceRuntime): DynamicModule {
    return {
      module: ConnectorsAppModule,
      imports: [
        PlatformModule.forRoot({ app: 'connectors', ...runtime, database: connectorsDatabase }),
        StatusModule.forService('connectors'),
        ConnectorsModule,
        ConnectorsWebhooksModule,
        CalendarModule,
      ],
    };
  }
}
