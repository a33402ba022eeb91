import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Metrics } from './metrics';

@Controller()
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  /** Prometheus scrape endpoint. */
  @Get('metrics')
  async metricsText(@Res() reply: FastifyReply): Promise<void> {
    const text = await this.metrics.registry.metrics();
    await reply.header('content-type', this.metrics.registry.contentType).send(text);
  }
}
