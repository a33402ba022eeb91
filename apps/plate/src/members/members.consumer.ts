import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { MemberChanged } from '@worktrack/contracts';
import { KafkaClient, LOGGER, MessageConsumer, Metrics, type AppLogger } from '@worktrack/platform';
import { MembersRepository } from './members.repository';

/**
 * Keeps the member projection from `identity.events` (group `plate.members`):
 * timezone, working days, capacity and workspace of every member.
 */
@Injectable()
export class MembersConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly consumer: MessageConsumer;

  constructor(kafka: KafkaClient, @Inject(LOGGER) logger: AppLogger, metrics: Metrics, members: MembersRepository) {
    this.consumer = new MessageConsumer(kafka, logger, metrics, { groupId: 'plate.members', fromBeginning: true }).on(
      MemberChanged,
      (member) => members.upsert(member),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.consumer.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.consumer.stop();
  }
}
