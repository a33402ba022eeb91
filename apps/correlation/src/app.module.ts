import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, StatusModule, type ServiceRuntime } from '@worktrack/platform';
import { correlationDatabase } from './database/data-source';
import { LinksModule } from './links/links.module';

/**
 * The correlation service: links stored events to the session running when
 * they happened (D-31), and usage records likewise (D-48). Owns schema
 * `correlation`, consumes `ingestion.events`, `ingestion.usage` and
 * `sessions.events`, publishes `correlation.links`.
 */
@Module({})
export class CorrelationAppModule {
  static register(runtime: ServiceRuntime): DynamicModule {
    return {
      module: CorrelationAppModule,
      imports: [
        PlatformModule.forRoot({ app: 'correlation', ...runtime, database: correlationDatabase }),
        StatusModule.forService('correlation'),
        LinksModule,
      ],
    };
  }
}
