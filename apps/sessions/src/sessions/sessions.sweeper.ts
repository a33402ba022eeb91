import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { LOGGER, Metrics, type AppLogger } from '@worktrack/platform';
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
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly publisher: SessionsPublisher,
    private readonly config: SessionsConfig,
    @Inject(LOGGER) logger: AppLogger,
    metrics: Metrics,
  ) {
    this.logger = logger.child({ component: 'sessions-sweeper' });
    this.autoClosed = metrics.counter('worktrack_sessions_auto_closed_total', 'Live sessions closed at the maximum duration (D-25).');
  }

  onApplicationBootstrap(): void {
    this.stopped = false;
    this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
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

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweep()
        .then((closed) => {
          if (closed > 0) this.logger.info({ closed }, 'sessions past the maximum duration closed');
        })
        .catch((err: unknown) => this.logger.error({ err }, 'session sweep failed; retrying at the next interval'))
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, this.config.SESSION_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }
}
