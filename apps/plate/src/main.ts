import { createLogger, drainOnSignals, loadConfig, runMain, runMigrations, startService } from '@worktrack/platform';
import { PlateAppModule } from './app.module';
import { PlateConfig } from './plate.config';
import { plateDatabase } from './database/data-source';

/** `node main.js` runs the service; `node main.js migrate` applies its migrations and exits. */
runMain('plate', async () => {
  const config = loadConfig(PlateConfig);
  const logger = createLogger('plate', config.LOG_LEVEL, config.INSTANCE_ID);
  if (process.argv[2] === 'migrate') {
    await runMigrations(config, plateDatabase, logger);
    return logger.flush();
  }
  drainOnSignals(await startService('plate', PlateAppModule, config, logger), config, logger);
});
