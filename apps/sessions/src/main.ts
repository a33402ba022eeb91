import { runServiceMain, type ServiceEntry } from '@worktrack/platform';
import { SessionsAppModule } from './app.module';
import { SessionsConfig } from './sessions.config';
import { sessionsDatabase } from './database/data-source';

/** What a process hosting sessions runs (WORKTRACK_SERVICES loads it from here). */
export const service: ServiceEntry<SessionsConfig> = {
  name: 'sessions',
  appModule: SessionsAppModule,
  config: SessionsConfig,
  database: sessionsDatabase,
};

/** `node main.js` runs the service (or those WORKTRACK_SERVICES names); `node main.js migrate` applies its migrations and exits. */
if (require.main === module) runServiceMain(service);
