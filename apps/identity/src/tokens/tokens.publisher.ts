import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { TokenRevoked, type TokenRevokedV1 } from '@worktrack/contracts';
import { enqueue } from '@worktrack/platform';

/** Revoked tokens on `identity.events` (gateway caches drop them), through the outbox in the revoking transaction. */
@Injectable()
export class TokensPublisher {
  revoked(manager: EntityManager, event: TokenRevokedV1): Promise<void> {
    return enqueue(manager, TokenRevoked, event, { key: event.memberId });
  }
}
