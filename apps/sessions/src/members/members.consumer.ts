import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { MemberChanged } from '@worktrack/contracts';
import { KafkaClient, LOGGER, MessageConsumer, Metrics, type AppLogger } from '@worktrack/platform';
import { MembersRepository } from './members.repository';

/**
 * Reads `identity.member.changed` v1 from `identity.events` (group
 * `sessions.members`, every replica sharing it) into the members projection.
 * At-least-once; the upsert makes a repeat harmless, and the member-id key
 * keeps one member's changes in order.
 */
@Injectable()
export class MembersConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly consumer: MessageConsumer;

  constructor(kafka: KafkaClient, @Inject(LOGGER) logger: AppLogger, metrics: Metrics, members: MembersRepository) {
    this.consumer = new MessageConsumer(kafka, logger.child({ component: 'members-consumer' }), metrics, {
      groupId: 'sessions.members',
      fromBeginning: true,
    }).on(MemberChanged, (member) => members.upsert(member, new Date()));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.consumer.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.consumer.stop();
  }
}
