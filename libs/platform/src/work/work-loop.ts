import type { AppLogger } from '../logging/logger';
import { jittered } from './backoff';

export interface WorkLoopOptions {
  /** Names the loop in its log lines. */
  name: string;
  /** The pause between two steps when the last one reported no more work. */
  intervalMs: number;
  /**
   * Spreads each pause uniformly over ±`jitter` of `intervalMs` (0 … 1), so
   * that replicas started together do not step together. Default 0.
   */
  jitter?: number;
  logger: AppLogger;
}

/**
 * Interval work: runs `step` every `intervalMs`, or at once after `kick()`,
 * never two at a time. A step that reports more work (`true`) is followed
 * at once by the next; one that fails is logged and tried again after the
 * interval. `stop()` drains: it cancels the next step and waits for the one
 * in progress. Timers never keep the process alive.
 */
export class WorkLoop {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = true;

  constructor(
    private readonly options: WorkLoopOptions,
    private readonly step: () => Promise<boolean>,
  ) {}

  /** Schedules the first step one interval from now. */
  start(): void {
    this.stopped = false;
    this.schedule(this.pauseMs());
  }

  /** Runs a step now, or right after the one in progress. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private pauseMs(): number {
    const { intervalMs, jitter = 0 } = this.options;
    return jitter > 0 ? Math.round(jittered(intervalMs, jitter)) : intervalMs;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), delayMs);
    this.timer.unref();
  }

  private run(): void {
    this.again = false;
    this.running = this.step()
      .catch((err: unknown) => {
        this.options.logger.error({ err, loop: this.options.name }, 'work step failed; retrying at the next interval');
        return false;
      })
      .then((more) => {
        this.running = undefined;
        this.schedule(more || this.again ? 0 : this.pauseMs());
      });
  }
}
