import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { TokenRevoked, TokenState, type TokenRevokedV1, type TokenStateV1 } from '@worktrack/contracts';
import { enqueue } from '@worktrack/platform';

/** The length of the secret-hash prefix the gateway replicas hold (`TokenStateV1.secretCheck`). */
const SECRET_CHECK_HEX = 16;

/** What `identity.tokens` says of a token: its id, a check of its secret, whether it is revoked, when it expires (D-43). */
export function tokenState(token: { id: string; secretHash: Buffer; revokedAt: Date | null; expiresAt: Date | null }): TokenStateV1 {
  return {
    tokenId: token.id,
    secretCheck: token.secretHash.toString('hex').slice(0, SECRET_CHECK_HEX),
    revoked: token.revokedAt !== null,
    expiresAt: token.expiresAt?.toISOString() ?? null,
  };
}

/** Token facts through the outbox, in the transaction that changes the token. */
@Injectable()
export class TokensPublisher {
  /** Revoked tokens on `identity.events` (gateway caches drop them at once). */
  revoked(manager: EntityManager, event: TokenRevokedV1): Promise<void> {
    return enqueue(manager, TokenRevoked, event, { key: event.memberId });
  }

  /** A token's state on the compacted `identity.tokens` (D-37: the replicas' registry of token ids), keyed by token id. */
  state(manager: EntityManager, state: TokenStateV1): Promise<void> {
    return enqueue(manager, TokenState, state, { key: state.tokenId });
  }
}
