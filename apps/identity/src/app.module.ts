import { Module, type DynamicModule } from '@nestjs/common';
import { OutboxRelay, PlatformModule, StatusModule, type ServiceRuntime } from '@worktrack/platform';
import { AgentsModule } from './agents/agents.module';
import { IdentityAuthModule } from './auth/auth.module';
import { identityDatabase } from './database/data-source';
import { IdentityMembersModule } from './members/members.module';
import { TokensModule } from './tokens/tokens.module';

/**
 * The identity service: workspaces, members, API tokens (D-7 … D-14), people's
 * access — passwords, browser sessions, invites, two-factor (D-38 … D-42). Owns
 * schema `identity`, answers `identity.commands`, publishes `identity.events` and every
 * member's state on the compacted `identity.members`.
 */
@Module({})
export class IdentityAppModule {
  static register(runtime: ServiceRuntime): DynamicModule {
    return {
      module: IdentityAppModule,
      imports: [
        PlatformModule.forRoot({ app: 'identity', ...runtime, database: identityDatabase }),
        StatusModule.forService('identity'),
        IdentityMembersModule,
        TokensModule,
        AgentsModule,
        IdentityAuthModule,
      ],
      // One relay for the outbox that members, tokens and agents write.
      providers: [OutboxRelay],
    };
  }
}
