import { Controller, type OnApplicationBootstrap } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { MemberState, type PayloadOf } from '@worktrack/contracts';
import { HandleEvent } from '@worktrack/platform';
import { PlateMembersService } from './members.service';

/**
 * Keeps the member projection (timezone, working days, capacity, version,
 * active) from the compacted `identity.members` (group `plate.members`).
 * Upserts keep the newest version, so redeliveries and the replay
 * overlapping the live consumer are harmless.
 */
@Controller()
export class PlateMembersConsumer implements OnApplicationBootstrap {
  constructor(private readonly members: PlateMembersService) {}

  /** Before the transport starts consuming: an empty projection is rebuilt from the topic's start. */
  async onApplicationBootstrap(): Promise<void> {
    await this.members.rebuildIfEmpty();
  }

  @HandleEvent(MemberState, { group: PlateMembersService.GROUP })
  upsert(@Payload() member: PayloadOf<typeof MemberState>): Promise<void> {
    return this.members.upsert(member);
  }
}
