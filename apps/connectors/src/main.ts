import { runServiceMain, type ServiceEntry } from '@worktrack/platform';
import { ConnectorsAppModule } from './app.module';
import { ConnectorsConfig } from './connectors.config';
import { connectorsDatabase } from './database/data-source';

/** What a process hosting connectors runs (WORKTRACK_SERVICES loads it from here). */
export const service: ServiceEntry<ConnectorsConfig> = {
  name: 'connectors',
  appModule: ConnectorsAppModule,
  config: ConnectorsConfig,
  database: connectorsDatabase,
};

/** `node main.js` runs the service (or those WORKTRACK_SERVICES names); `node main.js migrate` applies its migrations and exits. */
if (require.main === module) runServiceMain(service);
