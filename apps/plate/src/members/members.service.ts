import { Inject, Injectable } from '@nestjs/common';
import { MemberState, type MemberV1 } from '@worktrack/contracts';
import { KafkaClient, LOGGER, replayFromStart, type AppLogger } from '@worktrack/platform';
import { PlateMembersRepository } from './members.repository';

/** Plate's members projection (time zone, working days, capacity), fed by identity's member states. */
@Injectable()
export class PlateMembersService {
  /** The consumer group of the projection, shared by every replica. */
  static readonly GROUP = 'plate.members';
  private readonly logger: AppLogger;

  constructor(
    private readonly members: PlateMembersRepository,
    private readonly kafka: KafkaClient,
    @Inject(LOGGER) logger: AppLogger,
  ) {
    this.logger = logger.child({ component: 'members-projection' });
  }

  upsert(member: MemberV1): Promise<void> {
    return this.members.upsert(member);
  }

  /**
   * An empty projection — a new deployment, a restored or emptied database —
   * is rebuilt by reading `identity.members` from its start, which holds every
   * member's latest state however old.
   */
  async rebuildIfEmpty(): Promise<void> {
    if ((await this.members.count()) > 0) return;
    await replayFromStart(this.kafka, this.logger, MemberState, (member) => this.upsert(member), { groupId: PlateMembersService.GROUP });
  }
}
