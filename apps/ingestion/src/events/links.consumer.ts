import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Histogram } from 'prom-client';
import { EventsLinked } from '@worktrack/contracts';
import { KafkaClient, LOGGER, MessageConsumer, Metrics, type AppLogger } from '@worktrack/platform';
import { EventsRepository } from './events.repository';

/**
 * Makes correlation's links visible in the timeline (D-21, D-31): consumes
 * `correlation.links` (group `ingestion.links`) and keeps, per event, the
 * newest link version. Measures the link delay: from the event being stored
 * to its first link being visible.
 */
@Injectable()
export class LinksConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly consumer: MessageConsumer;

  constructor(kafka: KafkaClient, @Inject(LOGGER) logger: AppLogger, metrics: Metrics, events: EventsRepository) {
    const delay = new Histogram({
      name: 'worktrack_link_delay_seconds',
      help: 'From an event being stored to its first session link being visible in the timeline.',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.5, 2.5, 5, 10, 30],
      registers: [metrics.registry],
    });
    this.consumer = new MessageConsumer(kafka, logger, metrics, {
      groupId: 'ingestion.links',
      fromBeginning: true,
      concurrency: 12,
      reportLag: true,
    }).on(EventsLinked, async ({ memberId, links }) => {
      const applied = await events.applyLinks(memberId, links);
      const now = Date.now();
      for (const row of applied) if (row.link_version === 1) delay.observe((now - row.received_at.getTime()) / 1000);
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.consumer.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.consumer.stop();
  }
}
