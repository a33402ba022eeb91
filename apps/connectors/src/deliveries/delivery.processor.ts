import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { ContractViolation, ErrorCode } from '@worktrack/contracts';
import { backoffMs, DomainError, LOGGER, Metrics, WorkLoop, type AppLogger } from '@worktrack/platform';
import { ConnectorsConfig } from '../connectors.config';
import { ConnectorsRepository } from '../store/connectors.repository';
import { DeliveriesRepository, type ClaimedDelivery } from './deliveries.repository';
import { EventWriter } from './event-writer';

const BATCH = 20;
const LEASE_MS = 60_000;
/** Retries back off 1 s, 2 s, 4 s … up to 5 minutes; after this many attempts (about a day) the delivery fails. */
export const MAX_ATTEMPTS = 300;

export const retryDelayMs = (attempts: number): number => backoffMs(attempts - 1, { firstMs: 1_000, capMs: 300_000 });

/**
 * Ingests what the webhooks and the calendar poller logged as pending: every
 * replica runs this loop; rows are claimed with a lease, so each delivery is
 * processed by one replica at a time and picked up again if that replica
 * dies. Ingestion down → retried with backoff (nothing is lost); credential
 * revoked → the delivery fails and the connector is marked unhealthy.
 */
@Injectable()
export class DeliveryProcessor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: WorkLoop;
  private readonly outcomes: Counter<'outcome'>;
  private readonly logger: AppLogger;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly connectors: ConnectorsRepository,
    private readonly writer: EventWriter,
    config: ConnectorsConfig,
    @Inject(LOGGER) logger: AppLogger,
    metrics: Metrics,
  ) {
    this.logger = logger.child({ component: 'delivery-processor' });
    this.loop = new WorkLoop({ name: 'deliveries', intervalMs: config.WORK_POLL_INTERVAL_MS, logger: this.logger }, () => this.step());
    this.outcomes = metrics.counter('worktrack_connector_deliveries_processed_total', 'Connector deliveries processed, by outcome.', [
      'outcome',
    ]);
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  /** Something was logged as pending on this replica: process it now rather than at the next interval. */
  kick(): void {
    this.loop.kick();
  }

  /** One round: returns true when there may be more due right now. */
  async step(): Promise<boolean> {
    const claimed = await this.deliveries.claimDue(BATCH, LEASE_MS);
    await Promise.all(claimed.map((d) => this.process(d)));
    return claimed.length === BATCH;
  }

  private async process(delivery: ClaimedDelivery): Promise<void> {
    const connector = await this.connectors.findAny(delivery.connector_id);
    if (!connector || connector.deletedAt) {
      await this.deliveries.markFailed(delivery.id, 'the connector was deleted before its events were written');
      this.outcomes.inc({ outcome: 'failed' });
      return;
    }
    try {
      const result = await this.writer.write(connector, delivery.events, delivery.id);
      await this.deliveries.markIngested(delivery.id, result.accepted, result.deduplicated);
      this.outcomes.inc({ outcome: 'ingested' });
    } catch (err) {
      if (err instanceof DomainError && (err.code === ErrorCode.UNAUTHENTICATED || err.code === ErrorCode.FORBIDDEN)) {
        const detail = "the connector's credential was revoked (or its member removed); reconnect to resume";
        await this.deliveries.markFailed(delivery.id, detail);
        await this.connectors.setHealth(connector.id, detail);
        this.writer.forget(connector.id);
        this.outcomes.inc({ outcome: 'failed' });
        return;
      }
      if (err instanceof DomainError && err.code !== ErrorCode.UNAVAILABLE && err.code !== ErrorCode.INTERNAL) {
        const detail = `${err.code}: ${err.message}${err.details ? ` ${JSON.stringify(err.details)}` : ''}`;
        this.logger.error({ err, deliveryId: delivery.id }, 'mapped events were refused');
        await this.deliveries.markFailed(delivery.id, detail);
        this.outcomes.inc({ outcome: 'failed' });
        return;
      }
      if (err instanceof ContractViolation) {
        // The mapped events can never be stored (the command they make breaks its contract): retrying would
        // only repeat the refusal for a day. Failed at once, with the reason in the delivery log.
        const detail = `the mapped events break the ${err.contract} contract: ${err.details
          .slice(0, 5)
          .map((d) => `${d.path} ${d.issue}`)
          .join('; ')}`.slice(0, 1_000);
        this.logger.error({ err, deliveryId: delivery.id }, 'mapped events violate the ingestion contract');
        await this.deliveries.markFailed(delivery.id, detail);
        this.outcomes.inc({ outcome: 'failed' });
        return;
      }
      const reason = err instanceof DomainError ? `${err.code}: ${err.message}` : 'internal error';
      if (delivery.attempts >= MAX_ATTEMPTS) {
        await this.deliveries.markFailed(delivery.id, `gave up after ${delivery.attempts} attempts; last: ${reason}`);
        this.outcomes.inc({ outcome: 'failed' });
      } else {
        this.logger.warn({ err, deliveryId: delivery.id, attempts: delivery.attempts }, 'writing events failed; retrying later');
        await this.deliveries.retryAt(delivery.id, new Date(Date.now() + retryDelayMs(delivery.attempts)), `retrying: ${reason}`);
        this.outcomes.inc({ outcome: 'retried' });
      }
    }
  }
}
