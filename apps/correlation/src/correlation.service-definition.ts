import type { ServiceDefinition } from '@worktrack/platform';
import { correlationDatabase } from './database/data-source';

/** The correlation service: links between events and sessions. Owns schema `correlation`, answers `correlation.commands`. */
export const correlationService: ServiceDefinition = {
  name: 'correlation',
  database: correlationDatabase,
  features: [],
};
