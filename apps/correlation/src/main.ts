import '@worktrack/platform/tracing'; // first: tracing patches http, fastify, pg and ioredis as they load
import { runServiceMain, type ServiceEntry } from '@worktrack/platform';
import { CorrelationAppModule } from './app.module';
import { CorrelationConfig } from './correlation.config';
import { correlationDatabase } from './database/data-source';

/** What runs correlation (its own process, or scripts/services-host.ts beside other services). */
export const service: ServiceEntry<CorrelationConfig> = {
  name: 'correlation',
  appModule: CorrelationAppModule,
  config: CorrelationConfig,
  database: correlationDatabase,
};

/** `node main.js` runs the service; `node main.js migrate` applies its migrations and exits. */
if (require.main === module) runServiceMain(service);
