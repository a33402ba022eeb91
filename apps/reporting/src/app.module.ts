import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, StatusModule, type ServiceRuntime } from '@worktrack/platform';
import { reportingDatabase } from './database/data-source';
import { ReportingModule } from './reporting.module';

/**
 * The reporting service (D-49 … D-52): a projection fed only by topics
 * (sessions, events and their links, usage, members, plates) into daily and
 * hourly buckets, and the reports read from it. Owns schema `reporting`,
 * answers `reporting.commands`.
 */
@Module({})
export class ReportingAppModule {
  static register(runtime: ServiceRuntime): DynamicModule {
    return {
      module: ReportingAppModule,
      imports: [
        PlatformModule.forRoot({ app: 'reporting', ...runtime, database: reportingDatabase }),
        StatusModule.forService('reporting'),
        ReportingModule,
      ],
    };
  }
}
