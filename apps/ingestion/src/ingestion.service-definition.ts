import type { ServiceDefinition } from '@worktrack/platform';
import { ingestionDatabase } from './database/data-source';
import { EventsModule } from './events/events.module';

/**
 * The ingestion service: activity events and the timeline (D-15 … D-21). Owns
 * schema `ingestion`, answers `ingestion.commands`, publishes `ingestion.events`.
 */
export const ingestionService: ServiceDefinition = {
  name: 'ingestion',
  database: ingestionDatabase,
  features: [EventsModule],
};
