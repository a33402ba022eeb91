import { createLogger, drainOnSignals, loadConfig, runMain, runMigrations, startService } from '@worktrack/platform';
import { SessionsAppModule } from './app.module';
import { sessionsDatabase } from './database/data-source';
import { SessionsConfig } from './sessions.config';

/** `node main.js` runs the service; `node main.js migrate` applies its migrations and exits. */
runMain('sessions', async () => {
  const config = loadConfig(SessionsConfig);
  const logger = createLogger('sessions', config.LOG_LEVEL, config.INSTANCE_ID);
  if (process.argv[2] === 'migrate') {
    await runMigrations(config, sessionsDatabase, logger);
    return logger.flush();
  }
  drainOnSignals(await startService('sessions', SessionsAppModule, config, logger), config, logger);
});
