import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, StatusModule, type ServiceRuntime } from '@worktrack/platform';
import { sessionsDatabase } from './database/data-source';
import { MembersModule } from './members/members.module';
import { SessionsModule } from './sessions/sessions.module';

/**
 * The sessions service: work sessions (D-22 … D-30). Owns schema `sessions`,
 * answers `sessions.commands`, publishes `sessions.events`, and keeps a
 * projection of members (time zones) from `identity.members`.
 */
@Module({})
export class AppModule {
  static register(runtime: ServiceRuntime): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({ app: 'sessions', ...runtime, database: sessionsDatabase }),
        StatusModule.forService('sessions'),
        MembersModule,
        SessionsModule,
      ],
    };
  }
}
