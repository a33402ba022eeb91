import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, StatusModule, type ServiceRuntime } from '@worktrack/platform';
import { ingestionDatabase } from './database/data-source';
import { EventsModule } from './events/events.module';
import { UsageModule } from './usage/usage.module';

/**
 * The ingestion service: activity events and the timeline (D-15 … D-21), usage
 * records and price lists (D-45 … D-48). Owns schema `ingestion`, answers
 * `ingestion.commands`, publishes `ingestion.events` and `ingestion.usage`, and
 * shows correlation's links from `correlation.links`.
 */
@Module({})
export class IngestionAppModule {
  static register(runtime: ServiceRuntime): DynamicModule {
    return {
      module: IngestionAppModule,
      imports: [
        PlatformModule.forRoot({ app: 'ingestion', ...runtime, database: ingestionDatabase }),
        StatusModule.forService('ingestion'),
        EventsModule,
        UsageModule,
      ],
    };
  }
}
