import type { ServiceDefinition } from '@worktrack/platform';
import { sessionsDatabase } from './database/data-source';
import { MembersModule } from './members/members.module';
import { SessionsModule } from './sessions/sessions.module';

/**
 * The sessions service: work sessions (D-22 … D-30). Owns schema `sessions`,
 * answers `sessions.commands`, publishes `sessions.events`, and keeps a
 * projection of members (time zones) from `identity.events`.
 */
export const sessionsService: ServiceDefinition = {
  name: 'sessions',
  database: sessionsDatabase,
  features: [MembersModule, SessionsModule],
};
