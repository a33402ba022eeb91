import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { LOGGER, Metrics, WorkLoop, type AppLogger } from '@worktrack/platform';
import { SessionsConfig } from '../sessions.config';
import { SessionsPublisher } from './sessions.publisher';
import { SessionsRepository } from './sessions.repository';

const BATCH = 500;

/**
 * D-25: every SESSION_SWEEP_INTERVAL_MS, closes the live sessions past the
 * maximum duration at `started_at + max` and publishes `auto_closed` for
 * each. Every replica sweeps; each batch is one transaction that locks its
 * rows with SKIP LOCKED, so replicas share the work and never close a
 * session twice. (Requests that touch such a session close it themselves
 * first, so nothing waits for the sweeper.)
 */
@Injectable()
export class SessionsSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger: AppLogger;
  private readonly autoClosed: Counter;
  private readonly loop: WorkLoop;

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly publisher: SessionsPublisher,
    private readonly config: SessionsConfig,
    @Inject(LOGGER) logger: AppLogger,
    metrics: Metrics,
  ) {
    this.logger = logger.child({ component: 'sessions-sweeper' });
    this.autoClosed = metrics.counter('worktrack_sessions_auto_closed_total', 'Live sessions closed at the maximum duration (D-25).');
    this.loop = new WorkLoop({ name: 'sessions-sweeper', intervalMs: config.SESSION_SWEEP_INTERVAL_MS, logger: this.logger }, async () => {
      const closed = await this.sweep();
      if (closed > 0) this.logger.info({ closed }, 'sessions past the maximum duration closed');
      return false;
    });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.loop.stop();
  }

  /** Closes every live session past the maximum duration at `now`; returns how many this replica closed. */
  async sweep(now = new Date()): Promise<number> {
    let total = 0;
    for (;;) {
      const closed = await this.sessions.transaction(async (m) => {
        const expired = await this.sessions.expireDue(m, now, this.config.SESSION_MAX_DURATION_MS, BATCH);
        for (const s of expired) await this.publisher.changed(m, 'auto_closed', s);
        return expired.length;
      });
      if (closed > 0) this.autoClosed.inc(closed);
      total += closed;
      if (closed < BATCH) return total;
    }
  }
}
