import type { ServiceDefinition } from '@worktrack/platform';
import { ingestionDatabase } from './database/data-source';

/** The ingestion service: activity events and the timeline. Owns schema `ingestion`, answers `ingestion.commands`. */
export const ingestionService: ServiceDefinition = {
  name: 'ingestion',
  database: ingestionDatabase,
  features: [],
};
