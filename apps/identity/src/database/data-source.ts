import { IdentityInit1763750000000 } from './migrations/1763750000000-IdentityInit';

/** The identity service owns exactly this Postgres schema. */
export const identityDatabase = {
  schema: 'identity',
  entities: [],
  migrations: [IdentityInit1763750000000],
};
