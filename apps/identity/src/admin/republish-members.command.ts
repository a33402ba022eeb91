import { CommandUsageError, type ServiceConfig } from '@worktrack/platform';
import { toMemberV1 } from '../members/member.mapper';
import { MembersPublisher } from '../members/members.publisher';
import { IdentityMembersRepository } from '../members/members.repository';
import { withAdminDataSource } from './admin-data-source';

const PAGE = 500;

/**
 * Writes every member's current state to the outbox for the compacted
 * `identity.members` (the running service's relay publishes it). For
 * deployments whose members predate that topic, or after the topic was lost:
 * projections then rebuild from it. Safe to run again (consumers keep the
 * newest version). Prints `{"republished": n}`.
 */
export async function republishMembersCommand(args: string[], config: ServiceConfig): Promise<void> {
  if (args.length > 0) throw new CommandUsageError('usage: republish-members (no options)');
  await withAdminDataSource(config, async (dataSource) => {
    const members = new IdentityMembersRepository(dataSource);
    const publisher = new MembersPublisher();
    let after: string | null = null;
    let count = 0;
    for (;;) {
      const page = await members.page(after, PAGE);
      if (page.length === 0) break;
      await members.transaction(async (manager) => {
        for (const m of page) await publisher.state(manager, toMemberV1(m));
      });
      count += page.length;
      after = page[page.length - 1].id;
    }
    process.stdout.write(`${JSON.stringify({ republished: count })}\n`);
  });
}
