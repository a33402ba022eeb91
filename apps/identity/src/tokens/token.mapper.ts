import type { ApiTokenV1 } from '@worktrack/contracts';
import type { ApiTokenEntity } from './entities/api-token.entity';

/** An API token as the contract shows it: never its secret or hash. */
export const toApiTokenV1 = (t: ApiTokenEntity): ApiTokenV1 => ({
  tokenId: t.id,
  name: t.name,
  scope: t.scope,
  createdAt: t.createdAt.toISOString(),
  // D-43: minute precision (use is recorded at most once a minute).
  lastUsedAt: t.lastUsedAt ? new Date(Math.floor(t.lastUsedAt.getTime() / 60_000) * 60_000).toISOString() : null,
  revokedAt: t.revokedAt?.toISOString() ?? null,
  expiresAt: t.expiresAt?.toISOString() ?? null,
});
