import type { ServiceDefinition } from '@worktrack/platform';
import { correlationDatabase } from './database/data-source';
import { LinksModule } from './links/links.module';

/**
 * The correlation service: links stored events to the session running when
 * they happened (D-31). Owns schema `correlation`, consumes `ingestion.events`
 * and `sessions.events`, publishes `correlation.links`.
 */
export const correlationService: ServiceDefinition = {
  name: 'correlation',
  database: correlationDatabase,
  features: [LinksModule],
};
