import { runServiceMain, type ServiceEntry } from '@worktrack/platform';
import { AppModule } from './app.module';
import { IngestionConfig } from './ingestion.config';
import { ingestionDatabase } from './database/data-source';

/** What a process hosting ingestion runs (WORKTRACK_SERVICES loads it from here). */
export const service: ServiceEntry<IngestionConfig> = {
  name: 'ingestion',
  appModule: AppModule,
  config: IngestionConfig,
  database: ingestionDatabase,
};

/** `node main.js` runs the service (or those WORKTRACK_SERVICES names); `node main.js migrate` applies its migrations and exits. */
if (require.main === module) runServiceMain(service);
