import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { KafkaClient } from '../kafka/kafka.client';
import type { AppLogger } from '../logging/logger';
import { Metrics } from '../metrics/metrics';
import { LOGGER } from '../nest/tokens';
import { OutboxRelay } from './outbox';

/**
 * Runs a service's outbox relay while the service runs (started after
 * bootstrap, stopped before connections close). Provide it in the service's
 * events module; inject `OutboxRelay` (for `notify()`) through
 * `outboxRelayProviders`.
 */
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

/** The providers a service's module lists to run its relay and inject `OutboxRelay`. */
export const outboxRelayProviders = [
  OutboxRelayHost,
  { provide: OutboxRelay, inject: [OutboxRelayHost], useFactory: (host: OutboxRelayHost) => host.relay },
];
