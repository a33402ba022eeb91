import { StatusQuery, type ServiceName, type StatusResultV1 } from '@worktrack/contracts';
import type { CommandServer } from '../rpc/command.server';
import type { StatusRepository } from './status.repository';

/**
 * Every service answers `system.status.query` from its own Postgres: the
 * migrations applied in its schema and the database round-trip time.
 */
export function registerStatusHandler(
  server: CommandServer,
  service: ServiceName,
  instanceId: string,
  version: string,
  repository: StatusRepository,
): void {
  server.handle(StatusQuery[service], async (): Promise<StatusResultV1> => {
    const started = process.hrtime.bigint();
    const [migrations, databaseVersion] = await Promise.all([repository.appliedMigrations(), repository.serverVersion()]);
    const databaseLatencyMs = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
    return { service, instanceId, version, schema: repository.schema, migrations, databaseLatencyMs, databaseVersion };
  });
}
