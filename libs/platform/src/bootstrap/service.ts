import { Module, type DynamicModule, type Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource, type MigrationInterface } from 'typeorm';
import { ServiceCommandTopic, type ServiceName } from '@worktrack/contracts';
import type { ServiceConfig } from '../config/base.config';
import type { ServiceDataSourceOptions } from '../database/data-source.factory';
import { KafkaClient } from '../kafka/kafka.client';
import { createLogger, type AppLogger } from '../logging/logger';
import { Metrics } from '../metrics/metrics';
import { PlatformModule } from '../nest/platform.module';
import { LOGGER } from '../nest/tokens';
import { CommandServer } from '../rpc/command.server';
import { CommandServerHost } from '../rpc/command-server.host';
import { registerStatusHandler } from '../status/status.handler';
import { StatusRepository } from '../status/status.repository';
import { APP_VERSION } from './version';
import { createHttpApp } from './bootstrap';

/** A service's schema, entities and migrations (classes, in order). */
export interface ServiceDatabase extends Pick<ServiceDataSourceOptions, 'schema' | 'entities'> {
  migrations: Array<new () => MigrationInterface>;
}

export interface ServiceDefinition {
  name: ServiceName;
  database: ServiceDatabase;
  /** The service's feature modules; they inject CommandServer to register handlers. */
  features: Array<Type | DynamicModule>;
  /** Operator commands: `node main.js admin <name> [args]` (e.g. identity's create-member, D-14). */
  admin?: Record<string, (args: string[], config: ServiceConfig) => Promise<void>>;
}

/**
 * The module tree of a consumer service: platform (config, logger, metrics,
 * Kafka, its DataSource, probes), its CommandServer on its command topic with
 * the status command registered, and its feature modules.
 */
export function serviceModule(definition: ServiceDefinition, config: ServiceConfig, logger: AppLogger, metrics: Metrics): DynamicModule {
  @Module({})
  class CommandsModule {}

  const commands: DynamicModule = {
    module: CommandsModule,
    global: true,
    providers: [
      {
        provide: CommandServer,
        inject: [KafkaClient, LOGGER, Metrics, DataSource],
        useFactory: (client: KafkaClient, log: AppLogger, m: Metrics, dataSource: DataSource) => {
          const server = new CommandServer(client, log, m, {
            topic: ServiceCommandTopic[definition.name],
            groupId: definition.name,
          });
          registerStatusHandler(server, definition.name, config.INSTANCE_ID, APP_VERSION, new StatusRepository(dataSource));
          return server;
        },
      },
      CommandServerHost,
    ],
    exports: [CommandServer],
  };

  @Module({})
  class ServiceRootModule {}

  return {
    module: ServiceRootModule,
    imports: [
      PlatformModule.forRoot({ app: definition.name, config, logger, metrics, database: definition.database }),
      commands,
      ...definition.features,
    ],
  };
}

/** Starts a service: HTTP probes on HTTP_PORT, Kafka consumers, Postgres. */
export async function startService(
  definition: ServiceDefinition,
  config: ServiceConfig,
  logger: AppLogger = createLogger(definition.name, config.LOG_LEVEL, config.INSTANCE_ID),
): Promise<NestFastifyApplication> {
  const metrics = new Metrics(definition.name);
  return createHttpApp(serviceModule(definition, config, logger, metrics), { config, logger, metrics });
}
