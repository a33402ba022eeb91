import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { LOGGER, Metrics, type AppLogger } from '@worktrack/platform';
import { ConnectorsConfig } from '../connectors.config';
import { ConnectorsRepository } from '../connectors/connectors.repository';
import type { ConnectorEntity } from '../connectors/entities/connector.entity';
import { DeliveriesRepository } from '../deliveries/deliveries.repository';
import { DeliveryProcessor } from '../deliveries/delivery.processor';
import { SecretBox } from '../secrets/secret-box';
import { WorkLoop } from '../work/work-loop';
import { planCalendarEvents } from './calendar.mapper';
import { FeedFetcher, FeedFetchError } from './feed-fetcher';
import { parseFeedUrl } from './feed-url';
import { expandInstances, IcsParseError, parseIcsFeed } from './ics-feed';

const BATCH = 5;
const LEASE_MS = 120_000;
const DAY_MS = 86_400_000;

/**
 * Polls each calendar connector's ICS feed on its interval (D-36). A good
 * feed is expanded over the window (lookback … lookahead) and diffed against
 * the last good state: meetings that have started become `calendar.meeting`
 * events, later changes `.updated` / `.cancelled`; the events and the new
 * state are committed together as one pending delivery. A feed that cannot be
 * read or parsed marks the connector unhealthy with the reason and keeps the
 * last good state (nothing is taken as cancelled).
 */
@Injectable()
export class CalendarPoller implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: WorkLoop;
  private readonly logger: AppLogger;
  private readonly polls: Counter<'outcome'>;

  constructor(
    private readonly connectors: ConnectorsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly processor: DeliveryProcessor,
    private readonly fetcher: FeedFetcher,
    private readonly box: SecretBox,
    private readonly config: ConnectorsConfig,
    @Inject(LOGGER) logger: AppLogger,
    metrics: Metrics,
  ) {
    this.logger = logger.child({ component: 'calendar-poller' });
    this.loop = new WorkLoop('calendar', config.CALENDAR_SCHEDULER_INTERVAL_MS, () => this.step(), this.logger);
    this.polls = metrics.counter(
      'worktrack_connector_calendar_polls_total',
      'Calendar feed polls, by outcome (changed, unchanged, failed).',
      ['outcome'],
    );
  }

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  async step(): Promise<boolean> {
    const due = await this.connectors.claimDuePolls(BATCH, LEASE_MS);
    await Promise.all(due.map(({ id }) => this.poll(id)));
    return due.length === BATCH;
  }

  /** Polls one feed now (the caller holds its lease). */
  async poll(connectorId: string, now = new Date()): Promise<void> {
    const connector = await this.connectors.findLive(connectorId);
    if (!connector?.feedBox) return;
    const nextPollAt = new Date(now.getTime() + (connector.pollIntervalSeconds ?? 300) * 1000);
    let text: string;
    let instances;
    try {
      const url = parseFeedUrl(this.box.open(connector.feedBox));
      if (!url) throw new FeedFetchError('the stored feed URL is not an HTTP address');
      text = await this.fetcher.fetch(url);
      const window = {
        from: new Date(now.getTime() - this.config.CALENDAR_LOOKBACK_DAYS * DAY_MS),
        to: new Date(now.getTime() + this.config.CALENDAR_LOOKAHEAD_DAYS * DAY_MS),
      };
      instances = { list: expandInstances(parseIcsFeed(text), window), window };
    } catch (err) {
      if (!(err instanceof FeedFetchError || err instanceof IcsParseError)) throw err;
      await this.failed(
        connector,
        now,
        nextPollAt,
        `${err instanceof IcsParseError ? 'malformed feed' : 'feed unavailable'}: ${err.message}`,
      );
      return;
    }
    const plan = planCalendarEvents({ instances: instances.list, known: connector.calendarState ?? [], now, window: instances.window });
    const deliveryId = randomUUID();
    await this.connectors.transaction(async (m) => {
      if (plan.events.length > 0) {
        await this.deliveries.insert(
          {
            id: deliveryId,
            connectorId: connector.id,
            receivedAt: now,
            providerDeliveryId: `poll:${now.toISOString()}`,
            providerEvent: 'poll',
            state: 'pending',
            events: plan.events,
            eventsMapped: plan.events.length,
            detail: null,
            retryNum: null,
          },
          m,
        );
        await this.connectors.touchDelivery(connector.id, now, m);
      }
      await this.connectors.finishPoll(m, connector.id, { polledAt: now, nextPollAt, error: null, state: plan.state });
    });
    this.polls.inc({ outcome: plan.events.length > 0 ? 'changed' : 'unchanged' });
    if (plan.events.length > 0) this.processor.kick();
  }

  /** Marks the connector unhealthy, keeps its last good state; logs the failure once per distinct error. */
  private async failed(connector: ConnectorEntity, now: Date, nextPollAt: Date, error: string): Promise<void> {
    this.polls.inc({ outcome: 'failed' });
    this.logger.warn({ connectorId: connector.id, error }, 'calendar feed poll failed; keeping the last good state');
    await this.connectors.transaction(async (m) => {
      if (connector.lastError !== error) {
        await this.deliveries.insert(
          {
            id: randomUUID(),
            connectorId: connector.id,
            receivedAt: now,
            providerDeliveryId: `poll:${now.toISOString()}`,
            providerEvent: 'poll',
            state: 'failed',
            events: [],
            eventsMapped: 0,
            detail: error,
            retryNum: null,
          },
          m,
        );
      }
      await this.connectors.finishPoll(m, connector.id, { polledAt: now, nextPollAt, error });
    });
  }
}
