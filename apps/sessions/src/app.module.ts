import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, StatusModule, type ServiceRuntime } from '@worktrack/platform';
import { sessionsDatabase } from './database/data-source';
import { SessionsMembersModule } from './members/members.module';
import { SessionsModule } from './sessions/sessions.module';

/**
 * The sessions service: work sessions (D-22 … D-30). Owns schema `sessions`,
 * answers `sessions.commands`, publishes `sessions.events`, and keeps a
 * projection of members (time zones) from `identity.members`.
 */
@Module({})
export class SessionsAppModule {
  static register(runtime: ServiceRuntime): DynamicModule {
    return {
      module: SessionsAppModule,
      imports: [
        PlatformModule.forRoot({ app: 'sessions', ...runtime, database: sessionsDatabase }),
        StatusModule.forService('sessions'),
        SessionsMembersModule,
        SessionsModule,
      ],
    };
  }
}
