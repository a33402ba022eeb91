import { createLogger, drainOnSignals, loadConfig, runMain, runMigrations, startService } from '@worktrack/platform';
import { IngestionAppModule } from './app.module';
import { IngestionConfig } from './ingestion.config';
import { ingestionDatabase } from './database/data-source';

/** `node main.js` runs the service; `node main.js migrate` applies its migrations and exits. */
runMain('ingestion', async () => {
  const config = loadConfig(IngestionConfig);
  const logger = createLogger('ingestion', config.LOG_LEVEL, config.INSTANCE_ID);
  if (process.argv[2] === 'migrate') {
    await runMigrations(config, ingestionDatabase, logger);
    return logger.flush();
  }
  drainOnSignals(await startService('ingestion', IngestionAppModule, config, logger), config, logger);
});
