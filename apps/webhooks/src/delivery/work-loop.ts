import type { AppLogger } from '@worktrack/platform';

/**
 * Runs `step` every `intervalMs`, or at once after `kick()`, never two at a
 * time: a step that reports more work (`true`) is followed immediately by the
 * next. `stop()` waits for the step in progress.
 */
export class WorkLoop {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = true;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly step: () => Promise<boolean>,
    private readonly logger: AppLogger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(this.intervalMs);
  }

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
        this.logger.error({ err, loop: this.name }, 'work step failed; retrying at the next interval');
        return false;
      })
      .then((more) => {
        this.running = undefined;
        this.schedule(more || this.again ? 0 : this.intervalMs);
      });
  }
}
