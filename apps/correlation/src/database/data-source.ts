import { CorrelationInit1763750000002 } from './migrations/1763750000002-CorrelationInit';

/** The correlation service owns exactly this Postgres schema. */
export const correlationDatabase = {
  schema: 'correlation',
  entities: [],
  migrations: [CorrelationInit1763750000002],
};
