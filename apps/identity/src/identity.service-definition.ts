import type { ServiceDefinition } from '@worktrack/platform';
import { createMemberCommand } from './admin/create-member.command';
import { AgentsModule } from './agents/agents.module';
import { identityDatabase } from './database/data-source';
import { MembersModule } from './members/members.module';
import { TokensModule } from './tokens/tokens.module';

/**
 * The identity service: workspaces, members, API tokens (D-7 … D-14). Owns
 * schema `identity`, answers `identity.commands`, publishes `identity.events`.
 */
export const identityService: ServiceDefinition = {
  name: 'identity',
  database: identityDatabase,
  features: [MembersModule, TokensModule, AgentsModule],
  admin: { 'create-member': createMemberCommand },
};
