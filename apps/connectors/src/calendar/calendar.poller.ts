import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { LOGGER, Metrics, WorkLoop, type AppLogger } from '@worktrack/platform';
import { ConnectorsConfig } from '../connectors.config';
import { ConnectorsRepository } from '../store/connectors.repository';
import type { ConnectorEntity } from '../store/entities/connector.entity';
import { DeliveriesRepository } from '../deliveries/deliveries.repository';
import { DeliveryProcessor } from '../deliveries/delivery.processor';
import { EventWriter } from '../deliveries/event-writer';
import { SecretBox } from '@worktrack/platform';
import { planCalendarEvents } from './calendar.mapper';
import { FeedFetcher, FeedFetchError } from './feed-fetcher';
import { parseFeedUrl } from './feed-url';
import { IcsParseError, type CalendarInstance, type SkippedEvent } from './ics-feed';
import { IcsWorker } from './ics-worker';

const BATCH = 5;
const LEASE_MS = 120_000;
const DAY_MS = 86_400_000;
/** At most this many left-out events are named in a poll note. */
const MAX_NOTED_SKIPS = 20;

/** The member's zone could not be learned from identity: the poll is retried later. */
class MemberZoneError extends Error {}

/**
 * Polls each calendar connector's ICS feed on its interval (D-36). A good
 * feed is parsed and expanded over the window (lookback … lookahead) on a
 * worker thread (IcsWorker: the event loop stays free for webhooks), in the
 * linked member's time zone (all-day and floating times), and
 * diffed against the last good state: meetings that have started become
 * `calendar.meeting` events, later changes `.updated` / `.cancelled`; the
 * events and the new state are committed together as one pending delivery.
 * Events the reader had to leave out are named in a poll note in the delivery
 * log (logged when the set changes); the rest of the feed is stored. A feed
 * that cannot be read or parsed at all marks the connector unhealthy with the
 * reason and keeps the last good state (nothing is taken as cancelled).
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
    private readonly worker: IcsWorker,
    private readonly writer: EventWriter,
    private readonly box: SecretBox,
    private readonly config: ConnectorsConfig,
    @Inject(LOGGER) logger: AppLogger,
    metrics: Metrics,
  ) {
    this.logger = logger.child({ component: 'calendar-poller' });
    this.loop = new WorkLoop({ name: 'calendar', intervalMs: config.CALENDAR_SCHEDULER_INTERVAL_MS, logger: this.logger }, () =>
      this.step(),
    );
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
    const window = {
      from: new Date(now.getTime() - this.config.CALENDAR_LOOKBACK_DAYS * DAY_MS),
      to: new Date(now.getTime() + this.config.CALENDAR_LOOKAHEAD_DAYS * DAY_MS),
    };
    let expanded: { instances: CalendarInstance[]; skipped: SkippedEvent[] };
    try {
      const url = parseFeedUrl(this.box.open(connector.feedBox));
      if (!url) throw new FeedFetchError('the stored feed URL is not an HTTP address');
      const text = await this.fetcher.fetch(url);
      const memberZone = await this.memberZone(connector);
      const result = await this.worker.expand({ text, memberZone, fromMs: window.from.getTime(), toMs: window.to.getTime() });
      if (!result.ok) throw new IcsParseError(result.message);
      expanded = result;
    } catch (err) {
      if (!(err instanceof FeedFetchError || err instanceof IcsParseError || err instanceof MemberZoneError)) throw err;
      const kind = err instanceof IcsParseError ? 'malformed feed' : err instanceof MemberZoneError ? 'poll postponed' : 'feed unavailable';
      await this.failed(connector, now, nextPollAt, `${kind}: ${err.message}`);
      return;
    }
    const note = skipNote(expanded.skipped);
    const noteChanged = note !== null && note !== (await this.deliveries.latestPollNote(connector.id));
    const instances = { list: expanded.instances, window };
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
      if (noteChanged) {
        await this.deliveries.insert(
          {
            id: randomUUID(),
            connectorId: connector.id,
            receivedAt: now,
            providerDeliveryId: `poll:${now.toISOString()}:skipped`,
            providerEvent: 'poll',
            state: 'ignored',
            events: [],
            eventsMapped: 0,
            detail: note,
            retryNum: null,
          },
          m,
        );
      }
      await this.connectors.finishPoll(m, connector.id, { polledAt: now, nextPollAt, error: null, state: plan.state });
    });
    this.polls.inc({ outcome: plan.events.length > 0 ? 'changed' : 'unchanged' });
    if (plan.events.length > 0) this.processor.kick();
  }

  /** The linked member's zone, from identity; a failure postpones the poll rather than reading times in a wrong zone. */
  private async memberZone(connector: ConnectorEntity): Promise<string> {
    try {
      return await this.writer.memberTimezone(connector);
    } catch (err) {
      this.logger.warn({ err, connectorId: connector.id }, "the member's time zone could not be read");
      throw new MemberZoneError("the member's time zone could not be read from identity; the feed is polled again later");
    }
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

/**
 * The delivery-log note for events the reader left out: how many,
 * and for each its UID (else its position), line and reason. null when none.
 */
export function skipNote(skipped: readonly SkippedEvent[]): string | null {
  if (skipped.length === 0) return null;
  const named = skipped.slice(0, MAX_NOTED_SKIPS).map((s) => {
    const who = s.uid !== null ? `UID ${JSON.stringify(s.uid.slice(0, 120))}` : `event #${s.position}`;
    return `${who} (line ${s.line}): ${s.reason}`;
  });
  const more = skipped.length > MAX_NOTED_SKIPS ? `; and ${skipped.length - MAX_NOTED_SKIPS} more` : '';
  const count = skipped.length === 1 ? '1 event' : `${skipped.length} events`;
  return `${count} left out, the rest of the feed stored: ${named.join('; ')}${more}`;
}
