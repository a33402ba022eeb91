import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Gauge, Histogram, type Counter } from 'prom-client';
import { LOGGER, Metrics, SecretBox, WorkLoop, type AppLogger } from '@worktrack/platform';
import { DISABLE_AFTER_MS, RETENTION_MS, WebhooksConfig } from '../webhooks.config';
import { WebhooksRepository, type AttemptResult, type ClaimedDelivery } from '../webhooks.repository';
import { nextAttemptAt, parseRetryAfter } from './retry-schedule';
import { WebhookSender, type SendOutcome } from './sender';
import { signatureHeader } from './signer';

const PRUNE_INTERVAL_MS = 3_600_000;

/**
 * A wake-up waits until this long after the last claim round began, so that
 * under load one round records the attempts that ended and claims what came
 * due meanwhile for several messages (two statements), rather than two
 * statements per message. It adds at most this much to a delivery's latency.
 */
const GATHER_MS = 20;

interface Circuit {
  failures: number;
  openUntil: number;
}

/**
 * The delivery engine (D-55). Every replica runs it: due deliveries are
 * claimed from Postgres (FOR UPDATE SKIP LOCKED, with a lease), at most
 * WEBHOOK_ENDPOINT_CONCURRENCY in flight per endpoint and
 * WEBHOOK_MAX_IN_FLIGHT in all, so an endpoint that answers slowly (or
 * never) holds its own slots and nobody else's. After
 * WEBHOOK_CIRCUIT_FAILURES failures in a row an endpoint's circuit opens on
 * this replica: its deliveries wait WEBHOOK_CIRCUIT_OPEN_MS, then one probe
 * goes. Attempts are not awaited by the claim loop; each frees its slot,
 * leaves its result for the next round to record (the delivery stays
 * `sending` under its lease until then) and wakes the loop when it ends.
 */
@Injectable()
export class DeliveryEngine implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: WorkLoop;
  private readonly logger: AppLogger;
  private readonly box: SecretBox;
  private readonly inFlight = new Map<string, number>();
  private total = 0;
  private readonly running = new Set<Promise<void>>();
  /** Ended attempts not recorded yet, in the order they ended. */
  private finished: Array<{ result: AttemptResult; attemptId: string }> = [];
  private lastRound = 0;
  private gathering?: NodeJS.Timeout;
  private readonly circuits = new Map<string, Circuit>();
  private readonly outcomes: Counter<'outcome'>;
  private readonly latency: Histogram;
  private readonly pruning: WorkLoop;
  private readonly schedule: number[];
  private readonly jitter: number;
  private readonly leaseMs: number;

  constructor(
    private readonly repo: WebhooksRepository,
    private readonly sender: WebhookSender,
    private readonly config: WebhooksConfig,
    @Inject(LOGGER) logger: AppLogger,
    metrics: Metrics,
  ) {
    this.logger = logger.child({ component: 'webhook-delivery' });
    this.box = new SecretBox(config.WEBHOOK_SECRET_KEYS, 'WEBHOOK_SECRET_KEYS');
    this.schedule = config.retrySchedule();
    this.jitter = config.retryJitter();
    this.leaseMs = config.WEBHOOK_TIMEOUT_MS + 30_000;
    this.loop = new WorkLoop({ name: 'webhook-deliveries', intervalMs: config.WEBHOOK_POLL_INTERVAL_MS, logger: this.logger }, () =>
      this.step(),
    );
    // The delivery log past its retention goes once an hour.
    this.pruning = new WorkLoop({ name: 'webhook-log-prune', intervalMs: PRUNE_INTERVAL_MS, logger: this.logger }, async () => {
      await this.repo.prune(new Date(Date.now() - RETENTION_MS));
      return false;
    });
    this.outcomes = metrics.counter('worktrack_webhook_attempts_total', 'Webhook delivery attempts, by outcome.', ['outcome']);
    this.latency =
      (metrics.registry.getSingleMetric('worktrack_webhook_delivery_latency_seconds') as Histogram | undefined) ??
      new Histogram({
        name: 'worktrack_webhook_delivery_latency_seconds',
        help: 'From a message being created to its successful delivery, per endpoint delivered.',
        buckets: [0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30, 60, 300, 3600],
        registers: [metrics.registry],
      });
    if (!metrics.registry.getSingleMetric('worktrack_webhook_oldest_pending_seconds')) {
      const repo = this.repo;
      new Gauge({
        name: 'worktrack_webhook_oldest_pending_seconds',
        help: 'Per endpoint, the age of its oldest message not yet delivered (succeeded or given up).',
        labelNames: ['endpoint_id'],
        registers: [metrics.registry],
        async collect() {
          this.reset();
          for (const row of await repo.oldestPending()) this.set({ endpoint_id: row.endpoint_id }, row.seconds);
        },
      });
    }
  }

  onApplicationBootstrap(): void {
    this.loop.start();
    this.pruning.start();
  }

  async onModuleDestroy(): Promise<void> {
    clearTimeout(this.gathering);
    await this.pruning.stop();
    await this.loop.stop();
    await Promise.allSettled([...this.running]);
    await this.record();
  }

  /** Deliveries were queued on this replica, or an attempt ended: a claim round soon rather than at the next interval. */
  kick(): void {
    const wait = this.lastRound + GATHER_MS - Date.now();
    if (wait <= 0) {
      this.loop.kick();
      return;
    }
    this.gathering ??= setTimeout(() => {
      this.gathering = undefined;
      this.loop.kick();
    }, wait);
    this.gathering.unref();
  }

  /** One round: records the attempts that ended, then claims; true when there may be more due right now. */
  async step(): Promise<boolean> {
    this.lastRound = Date.now();
    await this.record();
    const free = this.config.WEBHOOK_MAX_IN_FLIGHT - this.total;
    if (free <= 0) return false;
    const now = Date.now();
    const perEndpoint = this.config.WEBHOOK_ENDPOINT_CONCURRENCY;
    const busy = new Map(this.inFlight);
    const excluded: string[] = [];
    for (const [endpointId, circuit] of this.circuits) {
      if (circuit.failures < this.config.WEBHOOK_CIRCUIT_FAILURES) continue;
      if (circuit.openUntil > now) excluded.push(endpointId);
      // Half open: one probe at a time.
      else busy.set(endpointId, Math.max(busy.get(endpointId) ?? 0, perEndpoint - 1));
    }
    const claimed = await this.repo.claimDue(busy, perEndpoint, excluded, free, this.leaseMs);
    for (const delivery of claimed) {
      this.inFlight.set(delivery.endpoint_id, (this.inFlight.get(delivery.endpoint_id) ?? 0) + 1);
      this.total++;
      const attempt = this.attempt(delivery)
        .catch((err: unknown) => {
          // The delivery stays `sending` until its lease ends, then it is claimed again.
          this.logger.error({ err, webhookId: delivery.webhook_id }, 'a webhook attempt ended in an error');
        })
        .finally(() => {
          const left = (this.inFlight.get(delivery.endpoint_id) ?? 1) - 1;
          if (left > 0) this.inFlight.set(delivery.endpoint_id, left);
          else this.inFlight.delete(delivery.endpoint_id);
          this.total--;
          this.running.delete(attempt);
          this.kick();
        });
      this.running.add(attempt);
    }
    return claimed.length === free;
  }

  /**
   * Writes the ended attempts in one statement. Should it fail (an endpoint
   * deleted meanwhile takes its log rows' foreign key with it), each is
   * written alone, so that one cannot hold back the others; one that still
   * fails is dropped with an error, and its delivery, still `sending`, is
   * claimed again when its lease ends.
   */
  private async record(): Promise<void> {
    const results = this.finished;
    if (results.length === 0) return;
    this.finished = [];
    try {
      await this.repo.finish(results);
      return;
    } catch (err) {
      if (results.length === 1) {
        this.logger.error({ err, webhookId: results[0].result.webhookId }, 'recording a webhook attempt failed');
        return;
      }
    }
    for (const one of results) {
      await this.repo.finish([one]).catch((err: unknown) => {
        this.logger.error({ err, webhookId: one.result.webhookId }, 'recording a webhook attempt failed');
      });
    }
  }

  /** The secrets that sign now: the current one and, for 24 hours after a rotation, the one it replaced (D-53). */
  private secretsOf(d: ClaimedDelivery, now: number): string[] {
    const secrets = [this.box.open(d.secret)];
    if (d.previous_secret && d.previous_secret_until && d.previous_secret_until.getTime() > now)
      secrets.push(this.box.open(d.previous_secret));
    return secrets;
  }

  private async attempt(d: ClaimedDelivery): Promise<void> {
    const started = Date.now();
    let outcome: SendOutcome;
    try {
      const timestamp = Math.floor(started / 1000);
      outcome = await this.sender.send(
        d.url,
        {
          'webhook-id': d.webhook_id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(this.secretsOf(d, started), d.webhook_id, timestamp, d.body),
        },
        d.body,
      );
    } catch (err) {
      this.logger.error({ err, webhookId: d.webhook_id, endpointId: d.endpoint_id }, 'a webhook attempt could not be made');
      outcome = { status: null, error: 'internal error' };
    }
    const ended = Date.now();
    const status = outcome.status;
    const succeeded = status !== null && status >= 200 && status < 300;
    let next: Date | null = null;
    let disable: string | null = null;
    if (!succeeded) {
      const retryAfter = status === 429 || status === 503 ? parseRetryAfter(outcome.retryAfter, ended) : null;
      next = nextAttemptAt(this.schedule, this.jitter, d.attempts, ended, retryAfter);
      if (status === 410) {
        next = null;
        disable = 'the endpoint answered 410 Gone';
      } else {
        const failingSince = d.failing_since?.getTime() ?? started;
        if (ended - failingSince >= DISABLE_AFTER_MS) disable = 'every attempt failed for 5 days';
      }
      if (disable) this.circuits.delete(d.endpoint_id);
    }
    this.track(d.endpoint_id, succeeded, ended);
    this.outcomes.inc({ outcome: succeeded ? 'succeeded' : status === 410 ? 'gone' : status === null ? 'no_answer' : 'failed' });
    if (succeeded) this.latency.observe((ended - d.message_created_at.getTime()) / 1000);
    else
      this.logger.info(
        { webhookId: d.webhook_id, endpointId: d.endpoint_id, status, reason: outcome.error, attempts: d.attempts, next },
        'webhook attempt failed',
      );
    this.finished.push({
      result: {
        endpointId: d.endpoint_id,
        webhookId: d.webhook_id,
        type: d.type,
        statusCode: status,
        succeeded,
        durationMs: ended - started,
        attemptedAt: new Date(started),
        nextAttemptAt: next,
        disable,
      },
      attemptId: randomUUID(),
    });
  }

  private track(endpointId: string, succeeded: boolean, now: number): void {
    if (succeeded) {
      this.circuits.delete(endpointId);
      return;
    }
    const circuit = this.circuits.get(endpointId) ?? { failures: 0, openUntil: 0 };
    circuit.failures++;
    if (circuit.failures >= this.config.WEBHOOK_CIRCUIT_FAILURES) circuit.openUntil = now + this.config.WEBHOOK_CIRCUIT_OPEN_MS;
    this.circuits.set(endpointId, circuit);
  }
}
