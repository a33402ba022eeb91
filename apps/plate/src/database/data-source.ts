import { PlateInit1763750000004 } from './migrations/1763750000004-PlateInit';

/** The plate service owns exactly this Postgres schema. */
export const plateDatabase = {
  schema: 'plate',
  entities: [],
  migrations: [PlateInit1763750000004],
};
