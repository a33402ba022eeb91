import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { AppConfig } from '../config/base.config';
import { ReadinessService } from '../health/readiness.service';
import { KafkaClient } from '../kafka/kafka.client';
import type { AppLogger } from '../logging/logger';
import { Metrics } from '../metrics/metrics';
import { LOGGER } from '../nest/tokens';
import { CommandClient, type CommandClientOptions } from './command.client';

export interface CommandClientModuleOptions<C extends AppConfig> {
  /** The app's config class (provided by PlatformModule). */
  config: Type<C>;
  /** How long a request waits for its reply, from the app's config. */
  timeoutMs: (config: C) => number;
  /** The reply topic this app reads (its own group per replica, ADR 0002). */
  replies: NonNullable<CommandClientOptions['replies']>;
  /** See `CommandClientOptions.validateCommands` (default true). */
  validateCommands?: boolean;
}

/**
 * The one way an app sends commands and waits for their replies (ADR 0002):
 * provides `CommandClient`, started (its reply partitions probed) before the
 * app listens, stopped after HTTP closed so that requests in flight get their
 * replies while draining; `/readyz` reports `replies`. Used by the gateway
 * (`gateway.replies`), the connectors service (`connectors.replies`) and
 * ingestion's link audit (`ingestion.replies`).
 */
@Module({})
export class CommandClientModule {
  static register<C extends AppConfig>(options: CommandClientModuleOptions<C>): DynamicModule {
    return {
      module: CommandClientModule,
      providers: [
        {
          provide: CommandClient,
          inject: [KafkaClient, LOGGER, Metrics, options.config, ReadinessService],
          useFactory: (kafka: KafkaClient, logger: AppLogger, metrics: Metrics, config: C, readiness: ReadinessService) => {
            const client = new CommandClient(kafka, logger, metrics, {
              timeoutMs: options.timeoutMs(config),
              replies: options.replies,
              validateCommands: options.validateCommands,
            });
            readiness.register('replies', () =>
              client.isReady ? Promise.resolve() : Promise.reject(new Error('reply consumer not ready')),
            );
            return client;
          },
        },
      ],
      exports: [CommandClient],
    };
  }
}
