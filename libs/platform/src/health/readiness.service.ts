import { Injectable } from '@nestjs/common';
import type { ErrorDetail } from '@worktrack/contracts';
import { within } from '../async/within';
import { Metrics } from '../metrics/metrics';

export type ReadinessCheck = () => Promise<void>;

/**
 * What /readyz reports: registered dependency checks (Postgres, Kafka, Redis,
 * request/reply) and whether the app takes work at all (false while starting
 * and while draining after SIGTERM).
 */
@Injectable()
export class ReadinessService {
  private readonly checks = new Map<string, ReadinessCheck>();
  private accepting = false;

  constructor(private readonly metrics: Metrics) {
    metrics.ready.set(0);
  }

  register(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  setAccepting(value: boolean): void {
    this.accepting = value;
    this.metrics.ready.set(value ? 1 : 0);
  }

  async evaluate(timeoutMs = 2_000): Promise<{ ready: boolean; checks: Record<string, string>; failures: ErrorDetail[] }> {
    const checks: Record<string, string> = {};
    const failures: ErrorDetail[] = [];
    if (!this.accepting) failures.push({ path: 'app', issue: 'starting or draining' });
    await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        try {
          await within(check(), timeoutMs, () => new Error(`no answer within ${timeoutMs} ms`));
          checks[name] = 'up';
        } catch (err) {
          checks[name] = 'down';
          failures.push({ path: name, issue: err instanceof Error ? err.message : String(err) });
        }
      }),
    );
    return { ready: failures.length === 0, checks, failures };
  }
}
