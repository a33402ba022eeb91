import '@worktrack/platform/tracing'; // first: tracing patches http, fastify, pg and ioredis as they load
import { runServiceMain, CommandUsageError, type ServiceConfig, type ServiceEntry } from '@worktrack/platform';
import { createMemberCommand } from './admin/create-member.command';
import { inviteCommand } from './admin/invite.command';
import { republishMembersCommand } from './admin/republish-members.command';
import { republishTokensCommand } from './admin/republish-tokens.command';
import { IdentityAppModule } from './app.module';
import { identityDatabase } from './database/data-source';
import { IdentityConfig } from './identity.config';

/** Operator commands: `node main.js admin <name> [args]` (D-14). */
const admin: Record<string, (args: string[], config: ServiceConfig) => Promise<void>> = {
  'create-member': createMemberCommand,
  'republish-members': republishMembersCommand,
  'republish-tokens': republishTokensCommand,
  invite: inviteCommand,
};

/** What runs identity (its own process, or scripts/services-host.ts beside other services). */
export const service: ServiceEntry<IdentityConfig> = {
  name: 'identity',
  appModule: IdentityAppModule,
  config: IdentityConfig,
  database: identityDatabase,
};

/**
 * `node main.js` runs the service; `node main.js migrate` applies its
 * migrations; `node main.js admin …` runs an operator command.
 */
if (require.main === module) {
  runServiceMain(service, async (argv, config) => {
    if (argv[0] !== 'admin') return false;
    const command = admin[argv[1] ?? ''];
    if (!command) throw new CommandUsageError(`identity admin commands: ${Object.keys(admin).join(', ')}`);
    await command(argv.slice(2), config);
    return true;
  });
}
