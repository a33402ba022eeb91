import '@worktrack/platform/tracing'; // first: tracing patches http, fastify, pg and ioredis as they load
import { runServiceMain, type ServiceEntry } from '@worktrack/platform';
import { ConnectorsAppModule } from './app.module';
import { ConnectorsConfig } from './connectors.config';
import { connectorsDatabase } from './database/data-source';

/** What runs connectors (its own process, or scripts/services-host.ts beside other services). */
export const service: ServiceEntry<ConnectorsConfig> = {
  name: 'connectors',
  appModule: ConnectorsAppModule,
  config: ConnectorsConfig,
  database: connectorsDatabase,
};

/** `node main.js` runs the service; `node main.js migrate` applies its migrations and exits. */
if (require.main === module) runServiceMain(service);
