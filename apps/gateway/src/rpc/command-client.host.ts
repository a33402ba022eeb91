import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandClient, KafkaClient, LOGGER, Metrics, ReadinessService, type AppLogger } from '@worktrack/platform';
import { GatewayConfig } from '../gateway.config';

/**
 * Owns the gateway's CommandClient: ready (probes seen) before the gateway
 * listens; stopped only after HTTP closed, so in-flight requests get their
 * replies while draining.
 */
@Injectable()
export class CommandClientHost implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly client: CommandClient;

  constructor(kafka: KafkaClient, @Inject(LOGGER) logger: AppLogger, metrics: Metrics, config: GatewayConfig, readiness: ReadinessService) {
    this.client = new CommandClient(kafka, logger, metrics, { timeoutMs: config.REQUEST_TIMEOUT_MS });
    readiness.register('replies', () => (this.client.isReady ? Promise.resolve() : Promise.reject(new Error('reply consumer not ready'))));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.client.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.stop();
  }
}
