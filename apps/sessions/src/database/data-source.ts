import { SessionsInit1763750000003 } from './migrations/1763750000003-SessionsInit';

/** The sessions service owns exactly this Postgres schema. */
export const sessionsDatabase = {
  schema: 'sessions',
  entities: [],
  migrations: [SessionsInit1763750000003],
};
