import { Inject, Injectable, Module, Optional, type DynamicModule, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig, ServiceConfig } from '../config/base.config';
import { createServiceDataSource, ensureDatabase, migrate, type ServiceDataSourceOptions } from '../database/data-source.factory';
import { HealthController } from '../health/health.controller';
import { ReadinessService } from '../health/readiness.service';
import { KafkaClient } from '../kafka/kafka.client';
import type { AppLogger } from '../logging/logger';
import { MetricsController } from '../metrics/metrics.controller';
import { Metrics } from '../metrics/metrics';
import { SignedCursor } from '../pagination/signed-cursor';
import { LOGGER } from './tokens';

export interface PlatformModuleOptions {
  app: string;
  config: AppConfig;
  logger: AppLogger;
  metrics: Metrics;
  /** For apps that own a schema: what their DataSource holds (url/pool come from config). */
  database?: Pick<ServiceDataSourceOptions, 'schema' | 'entities' | 'migrations'>;
}

/** Closes Kafka and Postgres last, after consumers drained and HTTP closed. */
@Injectable()
class PlatformLifecycle implements OnApplicationShutdown {
  constructor(
    private readonly kafka: KafkaClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Optional() private readonly dataSource?: DataSource,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.kafka.close();
    if (this.dataSource?.isInitialized) await this.dataSource.destroy();
    this.logger.info('connections closed');
  }
}

/**
 * Everything an app gets from the platform: config, logger, metrics, the
 * Kafka client, its DataSource and cursor signer (services), /healthz, /readyz
 * and /metrics. Global, so feature modules inject what they use.
 */
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions): DynamicModule {
    const { app, config, logger, metrics, database } = options;
    const providers: Provider[] = [
      { provide: AppConfig, useValue: config },
      { provide: config.constructor, useValue: config },
      { provide: LOGGER, useValue: logger },
      { provide: Metrics, useValue: metrics },
      ReadinessService,
      {
        provide: KafkaClient,
        inject: [ReadinessService],
        useFactory: (readiness: ReadinessService) => {
          const client = new KafkaClient(app, config, logger);
          readiness.register('kafka', () => client.ping());
          // A consumer that crashed for good makes the app not ready.
          readiness.register('consumers', () => client.assertConsumersRunning());
          return client;
        },
      },
      PlatformLifecycle,
    ];
    if (config instanceof ServiceConfig) {
      // One key signs every list's cursors (D-21, D-29).
      providers.push({ provide: SignedCursor, useValue: new SignedCursor(config.CURSOR_SECRET) });
      if (config.constructor !== ServiceConfig) providers.push({ provide: ServiceConfig, useValue: config });
    }
    if (database) {
      if (!(config instanceof ServiceConfig)) throw new Error(`${app}: a database needs a ServiceConfig`);
      providers.push({
        provide: DataSource,
        inject: [ReadinessService],
        useFactory: async (readiness: ReadinessService) => {
          const dataSource = createServiceDataSource({
            ...database,
            url: config.DATABASE_URL,
            poolSize: config.DATABASE_POOL_SIZE,
            applicationName: `${app}.${config.INSTANCE_ID}`.slice(0, 63),
          });
          // MIGRATE_ON_START is for development, tests and benches: a fresh machine has no database yet.
          if (config.MIGRATE_ON_START) await ensureDatabase(config.DATABASE_URL);
          await dataSource.initialize();
          if (config.MIGRATE_ON_START) {
            const applied = await migrate(dataSource);
            if (applied.length > 0) logger.info({ applied }, 'migrations applied');
          }
          readiness.register('postgres', async () => {
            await dataSource.query('SELECT 1');
          });
          return dataSource;
        },
      });
    }
    return {
      module: PlatformModule,
      global: true,
      providers,
      // Every provider: feature modules inject what they use.
      exports: providers,
      controllers: [HealthController, MetricsController],
    };
  }
}
