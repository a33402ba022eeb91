import type { ServiceDefinition } from '@worktrack/platform';
import { plateDatabase } from './database/data-source';
import { MembersModule } from './members/members.module';
import { PlateModule } from './plate/plate.module';

/**
 * The plate service: daily plates, capacity and overflow (D-32 … D-35). Owns
 * schema `plate`, answers `plate.commands`, keeps a projection of members from
 * `identity.events`.
 */
export const plateService: ServiceDefinition = {
  name: 'plate',
  database: plateDatabase,
  features: [MembersModule, PlateModule],
};
