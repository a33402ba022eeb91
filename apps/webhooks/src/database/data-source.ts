import { WebhooksTables1764900000001 } from './migrations/1764900000001-WebhooksTables';
import { EndpointsNotify1764900000002 } from './migrations/1764900000002-EndpointsNotify';

/** The webhooks service owns exactly this Postgres schema. */
export const webhooksDatabase = {
  schema: 'webhooks',
  entities: [],
  migrations: [WebhooksTables1764900000001, EndpointsNotify1764900000002],
};
