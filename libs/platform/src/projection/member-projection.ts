import { Controller, Inject, type OnApplicationBootstrap, type Type } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { MemberState, type MemberV1 } from '@worktrack/contracts';
import { KafkaClient } from '../kafka/kafka.client';
import type { AppLogger } from '../logging/logger';
import { LOGGER } from '../nest/tokens';
import { HandleEvent } from '../transport/contract-pattern';
import { replayFromStart } from './replay';

/** A service's own table of identity's members: the columns it needs, kept at the newest version. */
export interface MemberProjectionStore {
  /** Idempotent, and never older: a row is replaced only by the same or a newer version of the member. */
  upsert(member: MemberV1): Promise<void>;
  /** How many members the table holds (0: rebuild it from the member topic). */
  count(): Promise<number>;
}

/**
 * The consumer of a service's members projection: reads `identity.member.state`
 * from the compacted `identity.members` in `group` (every replica sharing it)
 * into `store`. At-least-once; the store keeps the newest version, and the
 * member-id key keeps one member's changes in order. Before the transport
 * starts consuming, an empty table — a new deployment, a restored or emptied
 * database — is rebuilt by reading the topic from its start, which holds every
 * member's latest state however old (the group's committed offsets are past
 * what the table lost). Each service keeps its own table and migration.
 */
export function MemberProjectionConsumer(group: string, store: Type<MemberProjectionStore>): Type<OnApplicationBootstrap> {
  @Controller()
  class MembersConsumer implements OnApplicationBootstrap {
    private readonly logger: AppLogger;

    constructor(
      @Inject(store) private readonly members: MemberProjectionStore,
      private readonly kafka: KafkaClient,
      @Inject(LOGGER) logger: AppLogger,
    ) {
      this.logger = logger.child({ component: 'members-projection' });
    }

    async onApplicationBootstrap(): Promise<void> {
      if ((await this.members.count()) > 0) return;
      await replayFromStart(this.kafka, this.logger, MemberState, (member) => this.members.upsert(member), { groupId: group });
    }

    @HandleEvent(MemberState, { group })
    upsert(@Payload() member: MemberV1): Promise<void> {
      return this.members.upsert(member);
    }
  }
  return MembersConsumer;
}
