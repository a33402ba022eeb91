import { createLogger, drainOnSignals, loadConfig, runMain, runMigrations, startService } from '@worktrack/platform';
import { ConnectorsAppModule } from './app.module';
import { ConnectorsConfig } from './connectors.config';
import { connectorsDatabase } from './database/data-source';

/** `node main.js` runs the service; `node main.js migrate` applies its migrations and exits. */
runMain('connectors', async () => {
  const config = loadConfig(ConnectorsConfig);
  const logger = createLogger('connectors', config.LOG_LEVEL, config.INSTANCE_ID);
  if (process.argv[2] === 'migrate') {
    await runMigrations(config, connectorsDatabase, logger);
    return logger.flush();
  }
  drainOnSignals(await startService('connectors', ConnectorsAppModule, config, logger), config, logger);
});
