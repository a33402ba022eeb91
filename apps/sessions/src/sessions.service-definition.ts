import type { ServiceDefinition } from '@worktrack/platform';
import { sessionsDatabase } from './database/data-source';

/** The sessions service: work sessions. Owns schema `sessions`, answers `sessions.commands`. */
export const sessionsService: ServiceDefinition = {
  name: 'sessions',
  database: sessionsDatabase,
  features: [],
};
