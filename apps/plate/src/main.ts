import '@worktrack/platform/tracing'; // first: tracing patches http, fastify, pg and ioredis as they load
import { runServiceMain, type ServiceEntry } from '@worktrack/platform';
import { PlateAppModule } from './app.module';
import { PlateConfig } from './plate.config';
import { plateDatabase } from './database/data-source';

/** What runs plate (its own process, or scripts/services-host.ts beside other services). */
export const service: ServiceEntry<PlateConfig> = {
  name: 'plate',
  appModule: PlateAppModule,
  config: PlateConfig,
  database: plateDatabase,
};

/** `node main.js` runs the service; `node main.js migrate` applies its migrations and exits. */
if (require.main === module) runServiceMain(service);
