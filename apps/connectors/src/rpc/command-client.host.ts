import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandClient, KafkaClient, LOGGER, Metrics, ReadinessService, type AppLogger } from '@worktrack/platform';
import { ConnectorsConfig } from '../connectors.config';

/**
 * The connectors service's own CommandClient (ADR 0002), with replies on
 * `connectors.replies`: it asks identity for credentials and sends ingestion
 * the same IngestEvents command the gateway sends for POST /activity/events.
 */
@Injectable()
export class CommandClientHost implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly client: CommandClient;

  constructor(
    kafka: KafkaClient,
    @Inject(LOGGER) logger: AppLogger,
    metrics: Metrics,
    config: ConnectorsConfig,
    readiness: ReadinessService,
  ) {
    this.client = new CommandClient(kafka, logger, metrics, { timeoutMs: config.COMMAND_TIMEOUT_MS, replies: 'connectorsReplies' });
    readiness.register('replies', () => (this.client.isReady ? Promise.resolve() : Promise.reject(new Error('reply consumer not ready'))));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.client.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.stop();
  }
}
