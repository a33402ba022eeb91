import '@worktrack/platform/tracing'; // first: tracing patches http, fastify, pg and ioredis as they load
import { runServiceMain, type ServiceEntry } from '@worktrack/platform';
import { IngestionAppModule } from './app.module';
import { IngestionConfig } from './ingestion.config';
import { ingestionDatabase } from './database/data-source';

/** What runs ingestion (its own process, or scripts/services-host.ts beside other services). */
export const service: ServiceEntry<IngestionConfig> = {
  name: 'ingestion',
  appModule: IngestionAppModule,
  config: IngestionConfig,
  database: ingestionDatabase,
};

/** `node main.js` runs the service; `node main.js migrate` applies its migrations and exits. */
if (require.main === module) runServiceMain(service);
