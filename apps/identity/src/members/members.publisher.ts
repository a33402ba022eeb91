import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { MemberChanged, MemberState, type MemberV1 } from '@worktrack/contracts';
import { enqueue } from '@worktrack/platform';

/**
 * Members on `identity.events` and `identity.members`, written to the outbox
 * in the same transaction as the change, published by the relay (no loss
 * between commit and publish), keyed by member id.
 */
@Injectable()
export class MembersPublisher {
  /**
   * Every change of a member, in the changing transaction: on `identity.events`
   * (gateway caches) and, as the member's whole state, on the compacted
   * `identity.members` (projections; kept forever).
   */
  async changed(manager: EntityManager, member: MemberV1): Promise<void> {
    await enqueue(manager, MemberChanged, member, { key: member.memberId });
    await this.state(manager, member);
  }

  /** The member's whole state alone (`republish-members`: projections rebuild from it). */
  state(manager: EntityManager, member: MemberV1): Promise<void> {
    return enqueue(manager, MemberState, member, { key: member.memberId });
  }
}
