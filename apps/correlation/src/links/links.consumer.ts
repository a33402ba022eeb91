import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { EventsStored, SessionChanged } from '@worktrack/contracts';
import { KafkaClient, LOGGER, MessageConsumer, Metrics, type AppLogger } from '@worktrack/platform';
import { LinksService } from './links.service';

/**
 * Consumes `ingestion.events` and `sessions.events` (group `correlation.events`; the command server has group `correlation`):
 * at least once, one member's messages in order per topic, poison messages to
 * the dead-letter topic (counted, never blocking the partition).
 */
@Injectable()
export class LinksConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly consumer: MessageConsumer;

  constructor(kafka: KafkaClient, @Inject(LOGGER) logger: AppLogger, metrics: Metrics, links: LinksService) {
    this.consumer = new MessageConsumer(kafka, logger, metrics, {
      groupId: 'correlation.events',
      fromBeginning: true,
      concurrency: 12,
      reportLag: true,
    })
      .on(EventsStored, (message) => links.onEventsStored(message))
      .on(SessionChanged, (change) => links.onSessionChanged(change));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.consumer.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.consumer.stop();
  }
}
