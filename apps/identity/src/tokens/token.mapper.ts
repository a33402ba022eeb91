import type { ApiTokenV1 } from '@worktrack/contracts';
import type { ApiTokenEntity } from './entities/api-token.entity';

/** An API token as the contract shows it: never its secret or hash. */
export const toApiTokenV1 = (t: ApiTokenEntity): ApiTokenV1 => ({
  tokenId: t.id,
  name: t.name,
  scope: t.scope,
  createdAt: t.createdAt.toISOString(),
  lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
  revokedAt: t.revokedAt?.toISOString() ?? null,
});
