import type { DynamicModule } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ServiceCommandTopic, type ServiceName } from '@worktrack/contracts';
import type { ServiceConfig } from '../config/base.config';
import { KafkaClient } from '../kafka/kafka.client';
import { createLogger, type AppLogger } from '../logging/logger';
import { Metrics, type MetricsOptions } from '../metrics/metrics';
import { KafkaContractTransport } from '../transport/kafka-contract.transport';
import { createHttpApp } from './bootstrap';

/** What a service's AppModule is built from (config, logger and metrics exist before Nest does). */
export interface ServiceRuntime<C extends ServiceConfig = ServiceConfig> {
  config: C;
  logger: AppLogger;
  metrics: Metrics;
}

/** A service's root module: `AppModule.register(runtime)` imports the platform and its feature modules. */
export interface ServiceAppModule<C extends ServiceConfig = ServiceConfig> {
  register(runtime: ServiceRuntime<C>): DynamicModule;
}

/**
 * Starts a service: its AppModule on the HTTP app (probes and metrics on
 * HTTP_PORT), and KafkaContractTransport connected as its microservice, which
 * serves the `@HandleCommand` handlers on the service's command topic (group
 * `<service>`) and the `@HandleEvent` handlers in their groups.
 */
export async function startService<C extends ServiceConfig>(
  name: ServiceName,
  appModule: ServiceAppModule<C>,
  config: C,
  logger: AppLogger = createLogger(name, config.LOG_LEVEL, config.INSTANCE_ID),
  options: MetricsOptions & { nestLogger?: AppLogger } = {},
): Promise<NestFastifyApplication> {
  const metrics = new Metrics(name, options);
  return createHttpApp(appModule.register({ config, logger, metrics }), {
    config,
    logger,
    metrics,
    nestLogger: options.nestLogger,
    microservice: (app) =>
      new KafkaContractTransport(app.get(KafkaClient), logger, metrics, {
        commandTopic: ServiceCommandTopic[name],
        commandGroup: name,
        ownsCommandTopic: true,
      }),
  });
}
