import { createLogger, drainOnSignals, loadConfig, runMain, runMigrations, startService } from '@worktrack/platform';
import { CorrelationAppModule } from './app.module';
import { CorrelationConfig } from './correlation.config';
import { correlationDatabase } from './database/data-source';

/** `node main.js` runs the service; `node main.js migrate` applies its migrations and exits. */
runMain('correlation', async () => {
  const config = loadConfig(CorrelationConfig);
  const logger = createLogger('correlation', config.LOG_LEVEL, config.INSTANCE_ID);
  if (process.argv[2] === 'migrate') {
    await runMigrations(config, correlationDatabase, logger);
    return logger.flush();
  }
  drainOnSignals(await startService('correlation', CorrelationAppModule, config, logger), config, logger);
});
