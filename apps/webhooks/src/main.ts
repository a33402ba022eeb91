import '@worktrack/platform/tracing'; // first: tracing patches http, fastify, pg and ioredis as they load
import { runServiceMain, type ServiceEntry } from '@worktrack/platform';
import { WebhooksAppModule } from './app.module';
import { WebhooksConfig } from './webhooks.config';
import { webhooksDatabase } from './database/data-source';

/** What runs webhooks (its own process, or scripts/services-host.ts beside other services). */
export const service: ServiceEntry<WebhooksConfig> = {
  name: 'webhooks',
  appModule: WebhooksAppModule,
  config: WebhooksConfig,
  database: webhooksDatabase,
};

/** `node main.js` runs the service; `node main.js migrate` applies its migrations and exits. */
if (require.main === module) runServiceMain(service);
