import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ErrorCode, SERVICE_NAMES, StatusQuery, type ErrorDetail, type ServiceName, type StatusResultV1 } from '@worktrack/contracts';
import { CommandClient, DomainError, isDomainError } from '@worktrack/platform';

export interface ServiceStatus extends StatusResultV1 {
  roundTripMs: number;
}

/** Asks every service, over Kafka, for its status read from its own Postgres. */
@Injectable()
export class StatusService {
  constructor(private readonly commands: CommandClient) {}

  async all(): Promise<ServiceStatus[]> {
    const results = await Promise.allSettled(SERVICE_NAMES.map((service) => this.one(service)));
    const failures: ErrorDetail[] = [];
    results.forEach((r, i) => {
      if (r.status === 'rejected') {
        failures.push({ path: SERVICE_NAMES[i], issue: isDomainError(r.reason) ? r.reason.message : 'failed' });
      }
    });
    if (failures.length > 0) {
      throw new DomainError(ErrorCode.UNAVAILABLE, `Unavailable: ${failures.map((f) => f.path).join(', ')}.`, failures);
    }
    return results.map((r) => (r as PromiseFulfilledResult<ServiceStatus>).value);
  }

  async one(service: ServiceName): Promise<ServiceStatus> {
    const started = Date.now();
    const result = await this.commands.send(StatusQuery[service], { requestedBy: 'gateway' }, { key: randomUUID() });
    return { ...result, roundTripMs: Date.now() - started };
  }
}
