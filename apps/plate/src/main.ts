import { runServiceMain, type ServiceEntry } from '@worktrack/platform';
import { PlateAppModule } from './app.module';
import { PlateConfig } from './plate.config';
import { plateDatabase } from './database/data-source';

/** What a process hosting plate runs (WORKTRACK_SERVICES loads it from here). */
export const service: ServiceEntry<PlateConfig> = {
  name: 'plate',
  appModule: PlateAppModule,
  config: PlateConfig,
  database: plateDatabase,
};

/** `node main.js` runs the service (or those WORKTRACK_SERVICES names); `node main.js migrate` applies its migrations and exits. */
if (require.main === module) runServiceMain(service);
