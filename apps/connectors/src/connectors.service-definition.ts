import type { ServiceDefinition } from '@worktrack/platform';
import { ConnectorsModule } from './connectors/connectors.module';
import { connectorsDatabase } from './database/data-source';

/**
 * The connectors service (D-36): GitHub and Slack webhooks and ICS calendar
 * feeds, mapped to ActivityEvents and written through ingestion as the
 * connected member. Owns schema `connectors`, answers `connectors.commands`,
 * sends commands with replies on `connectors.replies`.
 */
export const connectorsService: ServiceDefinition = {
  name: 'connectors',
  database: connectorsDatabase,
  features: [ConnectorsModule],
};
