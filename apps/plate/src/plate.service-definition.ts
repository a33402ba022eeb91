import type { ServiceDefinition } from '@worktrack/platform';
import { plateDatabase } from './database/data-source';

/** The plate service: plate items. Owns schema `plate`, answers `plate.commands`. */
export const plateService: ServiceDefinition = {
  name: 'plate',
  database: plateDatabase,
  features: [],
};
