import {
  createLogger,
  drainOnSignals,
  loadConfig,
  runMain,
  runMigrations,
  startService,
  CommandUsageError,
  type ServiceConfig,
} from '@worktrack/platform';
import { createMemberCommand } from './admin/create-member.command';
import { republishMembersCommand } from './admin/republish-members.command';
import { IdentityAppModule } from './app.module';
import { identityDatabase } from './database/data-source';
import { IdentityConfig } from './identity.config';

/** Operator commands: `node main.js admin <name> [args]` (D-14). */
const admin: Record<string, (args: string[], config: ServiceConfig) => Promise<void>> = {
  'create-member': createMemberCommand,
  'republish-members': republishMembersCommand,
};

/** `node main.js` runs the service; `node main.js migrate` applies its migrations; `node main.js admin …` runs an operator command. */
runMain('identity', async () => {
  const config = loadConfig(IdentityConfig);
  const logger = createLogger('identity', config.LOG_LEVEL, config.INSTANCE_ID);
  if (process.argv[2] === 'admin') {
    const command = admin[process.argv[3] ?? ''];
    if (!command) throw new CommandUsageError(`identity admin commands: ${Object.keys(admin).join(', ')}`);
    return command(process.argv.slice(4), config);
  }
  if (process.argv[2] === 'migrate') {
    await runMigrations(config, identityDatabase, logger);
    return logger.flush();
  }
  drainOnSignals(await startService('identity', IdentityAppModule, config, logger), config, logger);
});
