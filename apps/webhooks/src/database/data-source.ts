import { WebhooksTables1764900000001 } from './migrations/1764900000001-WebhooksTables';

/** The webhooks service owns exactly this Postgres schema. */
export const webhooksDatabase = {
  schema: 'webhooks',
  entities: [],
  migrations: [WebhooksTables1764900000001],
};
