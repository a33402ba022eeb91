import { runServiceMain, type ServiceEntry } from '@worktrack/platform';
import { CorrelationAppModule } from './app.module';
import { CorrelationConfig } from './correlation.config';
import { correlationDatabase } from './database/data-source';

/** What a process hosting correlation runs (WORKTRACK_SERVICES loads it from here). */
export const service: ServiceEntry<CorrelationConfig> = {
  name: 'correlation',
  appModule: CorrelationAppModule,
  config: CorrelationConfig,
  database: correlationDatabase,
};

/** `node main.js` runs the service (or those WORKTRACK_SERVICES names); `node main.js migrate` applies its migrations and exits. */
if (require.main === module) runServiceMain(service);
