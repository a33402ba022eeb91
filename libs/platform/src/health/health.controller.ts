import { Controller, Get, Header } from '@nestjs/common';
import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '../errors/domain-error';
import { ReadinessService } from './readiness.service';

@Controller()
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  /** Liveness: the process serves HTTP. Never checks dependencies. */
  @Get('healthz')
  @Header('cache-control', 'no-store')
  healthz(): { data: { status: 'ok' } } {
    return { data: { status: 'ok' } };
  }

  /** Readiness: dependencies answer and the app is not draining; else 503 UNAVAILABLE. */
  @Get('readyz')
  @Header('cache-control', 'no-store')
  async readyz(): Promise<{ data: { status: 'ready'; checks: Record<string, string> } }> {
    const result = await this.readiness.evaluate();
    if (!result.ready) {
      throw new DomainError(ErrorCode.UNAVAILABLE, `Not ready: ${result.failures.map((f) => f.path).join(', ')}.`, result.failures);
    }
    return { data: { status: 'ready', checks: result.checks } };
  }
}
