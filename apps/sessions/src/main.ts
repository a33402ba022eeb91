import '@worktrack/platform/tracing'; // first: tracing patches http, fastify, pg and ioredis as they load
import { runServiceMain, type ServiceEntry } from '@worktrack/platform';
import { SessionsAppModule } from './app.module';
import { SessionsConfig } from './sessions.config';
import { sessionsDatabase } from './database/data-source';

/** What runs sessions (its own process, or scripts/services-host.ts beside other services). */
export const service: ServiceEntry<SessionsConfig> = {
  name: 'sessions',
  appModule: SessionsAppModule,
  config: SessionsConfig,
  database: sessionsDatabase,
};

/** `node main.js` runs the service; `node main.js migrate` applies its migrations and exits. */
if (require.main === module) runServiceMain(service);
