import '@worktrack/platform/tracing'; // first: tracing patches http, fastify, pg and ioredis as they load
import { runServiceMain, type ServiceEntry } from '@worktrack/platform';
import { ReportingAppModule } from './app.module';
import { ReportingConfig } from './reporting.config';
import { reportingDatabase } from './database/data-source';

/** What runs reporting (its own process, or scripts/services-host.ts beside other services). */
export const service: ServiceEntry<ReportingConfig> = {
  name: 'reporting',
  appModule: ReportingAppModule,
  config: ReportingConfig,
  database: reportingDatabase,
};

/** `node main.js` runs the service; `node main.js migrate` applies its migrations and exits. */
if (require.main === module) runServiceMain(service);
