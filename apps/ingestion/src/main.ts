import { runServiceMain, type ServiceEntry } from '@worktrack/platform';
import { IngestionAppModule } from './app.module';
import { IngestionConfig } from './ingestion.config';
import { ingestionDatabase } from './database/data-source';

/** What a process hosting ingestion runs (WORKTRACK_SERVICES loads it from here). */
export const service: ServiceEntry<IngestionConfig> = {
  name: 'ingestion',
  appModule: IngestionAppModule,
  config: IngestionConfig,
  database: ingestionDatabase,
};

/** `node main.js` runs the service (or those WORKTRACK_SERVICES names); `node main.js migrate` applies its migrations and exits. */
if (require.main === module) runServiceMain(service);
