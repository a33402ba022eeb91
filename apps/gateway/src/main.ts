import '@worktrack/platform/tracing'; // first: tracing patches http, fastify, pg and ioredis as they load
import { createLogger, drainOnSignals, loadConfig, runMain } from '@worktrack/platform';
import { startGateway } from './gateway.app';
import { GatewayConfig } from './gateway.config';

runMain('gateway', async () => {
  const config = loadConfig(GatewayConfig);
  const logger = createLogger('gateway', config.LOG_LEVEL, config.INSTANCE_ID);
  const app = await startGateway(config, logger);
  drainOnSignals(app, config, logger);
});
