import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { MemberChanged, MemberState, TokenRevoked, type MemberV1, type TokenRevokedV1 } from '@worktrack/contracts';
import { enqueue, OutboxRelay } from '@worktrack/platform';

/**
 * Identity's facts on `identity.events`, written to the outbox in the same
 * transaction as the change, published by the relay (no loss between commit
 * and publish), keyed by member id.
 */
@Injectable()
export class IdentityEvents {
  constructor(@Inject(OutboxRelay) private readonly relay: Pick<OutboxRelay, 'notify'>) {}

  /**
   * Every change of a member, in the changing transaction: on `identity.events`
   * (gateway caches) and, as the member's whole state, on the compacted
   * `identity.members` (projections; kept forever).
   */
  async memberChanged(manager: EntityManager, member: MemberV1): Promise<void> {
    await enqueue(manager, MemberChanged, member, { key: member.memberId });
    await enqueue(manager, MemberState, member, { key: member.memberId });
  }

  tokenRevoked(manager: EntityManager, event: TokenRevokedV1): Promise<void> {
    return enqueue(manager, TokenRevoked, event, { key: event.memberId });
  }

  /** After commit: publish now rather than at the next poll. */
  published(): void {
    this.relay.notify();
  }
}
