import { Controller, Get, UseGuards } from '@nestjs/common';
import { OperatorGuard } from '@worktrack/platform';
import { StatusService, type ServiceStatus } from './status.service';

/**
 * Operator diagnostics (outside /v1): one request crosses the gateway, Kafka
 * and every service's Postgres and comes back. 503 UNAVAILABLE names the
 * services that did not answer within REQUEST_TIMEOUT_MS. Behind the
 * operator credential (OPERATOR_TOKEN) when it is set.
 */
@Controller('status')
@UseGuards(OperatorGuard)
export class StatusController {
  constructor(private readonly status: StatusService) {}

  @Get()
  async get(): Promise<{ data: { services: ServiceStatus[] } }> {
    return { data: { services: await this.status.all() } };
  }
}
