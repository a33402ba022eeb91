import { IngestionInit1763750000001 } from './migrations/1763750000001-IngestionInit';

/** The ingestion service owns exactly this Postgres schema. */
export const ingestionDatabase = {
  schema: 'ingestion',
  entities: [],
  migrations: [IngestionInit1763750000001],
};
