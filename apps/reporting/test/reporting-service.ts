import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { allTopics } from '@worktrack/contracts';
import { ensureTopics, startService } from '@worktrack/platform';
import { ownNamespace, testConfig, testKafka, type TestKafka } from '@worktrack/testing';
import { ReportingAppModule } from '../src/app.module';
import { ReportingConfig } from '../src/reporting.config';

/** A reporting service of one spec file, and the Kafka client that feeds it. */
export interface ReportingUnderTest {
  app: NestFastifyApplication;
  kafka: TestKafka;
  /** Closes the Kafka client and the service, then drops the spec's database (afterAll). */
  close(): Promise<void>;
}

/**
 * Starts the reporting service on a database and topic prefix of its own
 * (`ownNamespace(name)`), with every topic created, so the spec file neither
 * takes another file's messages nor shares its projection. `env` adds to the
 * service's configuration.
 */
export async function startReporting(name: string, env: Record<string, string> = {}): Promise<ReportingUnderTest> {
  const namespace = await ownNamespace(name);
  const kafka = testKafka(`${name.replace(/_/g, '-')}-it`, namespace.env);
  try {
    await ensureTopics(await kafka.client.admin(), allTopics(), namespace.prefix);
    const app = await startService('reporting', ReportingAppModule, testConfig(ReportingConfig, { ...namespace.env, ...env }));
    return {
      app,
      kafka,
      close: async () => {
        await kafka.close();
        await app.close();
        await namespace.drop();
      },
    };
  } catch (err) {
    await kafka.close();
    await namespace.drop();
    throw err;
  }
}
