import { Controller, Get, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Metrics } from './metrics';
import { OperatorGuard } from './operator.guard';

@Controller()
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  /** Prometheus scrape endpoint; behind OPERATOR_TOKEN when it is set. */
  @Get('metrics')
  @UseGuards(OperatorGuard)
  async metricsText(@Res() reply: FastifyReply): Promise<void> {
    const text = await this.metrics.registry.metrics();
    await reply.header('content-type', this.metrics.registry.contentType).header('cache-control', 'no-store').send(text);
  }
}
