import { Controller, type OnApplicationBootstrap } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { MemberState, type PayloadOf } from '@worktrack/contracts';
import { HandleEvent } from '@worktrack/platform';
import { SessionsMembersService } from './members.service';

/**
 * Reads `identity.member.state` from the compacted `identity.members` (group
 * `sessions.members`, every replica sharing it) into the members projection.
 * At-least-once; the upsert keeps the newest version, and the member-id key
 * keeps one member's changes in order.
 */
@Controller()
export class SessionsMembersConsumer implements OnApplicationBootstrap {
  constructor(private readonly members: SessionsMembersService) {}

  /** Before the transport starts consuming: an empty projection is rebuilt from the topic's start. */
  async onApplicationBootstrap(): Promise<void> {
    await this.members.rebuildIfEmpty();
  }

  @HandleEvent(MemberState, { group: SessionsMembersService.GROUP })
  upsert(@Payload() member: PayloadOf<typeof MemberState>): Promise<void> {
    return this.members.upsert(member);
  }
}
