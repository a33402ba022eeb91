import type { EntityManager } from 'typeorm';
import { TokensPublisher, tokenState } from './tokens.publisher';

const PAGE = 500;

/**
 * Writes every API token's state to the outbox for the compacted
 * `identity.tokens` (D-37), a page per statement, in the caller's
 * transaction. Tokens minted before the topic existed reach the gateway
 * replicas' registry this way; consumers keep the latest state of a key, so
 * running it again changes nothing. Returns how many were written.
 */
export async function publishEveryTokenState(manager: EntityManager, publisher = new TokensPublisher()): Promise<number> {
  let after = '';
  let count = 0;
  for (;;) {
    const rows = await manager.query<Array<{ id: string; secret_hash: Buffer; revoked_at: Date | null; expires_at: Date | null }>>(
      `SELECT id, secret_hash, revoked_at, expires_at FROM "identity"."api_tokens" WHERE id > $1 ORDER BY id LIMIT $2`,
      [after, PAGE],
    );
    for (const row of rows)
      await publisher.state(
        manager,
        tokenState({ id: row.id, secretHash: row.secret_hash, revokedAt: row.revoked_at, expiresAt: row.expires_at }),
      );
    count += rows.length;
    if (rows.length < PAGE) return count;
    after = rows[rows.length - 1].id;
  }
}
