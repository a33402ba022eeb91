import type { ServiceDefinition } from '@worktrack/platform';
import { identityDatabase } from './database/data-source';

/** The identity service: workspaces, members, API tokens. Owns schema `identity`, answers `identity.commands`. */
export const identityService: ServiceDefinition = {
  name: 'identity',
  database: identityDatabase,
  features: [],
};
