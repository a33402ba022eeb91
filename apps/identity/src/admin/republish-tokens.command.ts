import { CommandUsageError, type ServiceConfig } from '@worktrack/platform';
import { IdentityMembersRepository } from '../members/members.repository';
import { publishEveryTokenState } from '../tokens/token-states';
import { withAdminDataSource } from './admin-data-source';

/**
 * Writes every API token's state to the outbox for the compacted
 * `identity.tokens` (the running service's relay publishes it): after that
 * topic was lost, the gateway replicas' registry of token ids (D-37) rebuilds
 * from it. Safe to run again. Prints `{"republished": n}`.
 */
export async function republishTokensCommand(args: string[], config: ServiceConfig): Promise<void> {
  if (args.length > 0) throw new CommandUsageError('usage: republish-tokens (no options)');
  await withAdminDataSource(config, async (dataSource) => {
    const count = await new IdentityMembersRepository(dataSource).transaction((manager) => publishEveryTokenState(manager));
    process.stdout.write(`${JSON.stringify({ republished: count })}\n`);
  });
}
