import { Controller, Get } from '@nestjs/common';
import { StatusService, type ServiceStatus } from './status.service';

/**
 * Operator diagnostics (outside /v1): one request crosses the gateway, Kafka
 * and every service's Postgres and comes back. 503 UNAVAILABLE names the
 * services that did not answer within REQUEST_TIMEOUT_MS.
 */
@Controller('status')
export class StatusController {
  constructor(private readonly status: StatusService) {}

  @Get()
  async get(): Promise<{ data: { services: ServiceStatus[] } }> {
    return { data: { services: await this.status.all() } };
  }
}
