import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { KafkaClient, LOGGER, Metrics, OutboxRelay, type AppLogger } from '@worktrack/platform';

/** Runs identity's outbox relay while the service runs (one replica relays at a time). */
@Injectable()
export class OutboxRelayHost implements OnApplicationBootstrap, OnModuleDestroy {
  readonly relay: OutboxRelay;

  constructor(dataSource: DataSource, kafka: KafkaClient, @Inject(LOGGER) logger: AppLogger, metrics: Metrics) {
    this.relay = new OutboxRelay(dataSource, kafka, logger, metrics);
  }

  onApplicationBootstrap(): void {
    void this.relay.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.relay.stop();
  }
}
