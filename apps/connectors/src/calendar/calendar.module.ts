import { Module } from '@nestjs/common';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { ConnectorStoreModule } from '../store/connector-store.module';
import { CalendarPoller } from './calendar.poller';
import { FeedFetcher } from './feed-fetcher';
import { IcsWorker } from './ics-worker';

/** ICS calendar feeds: polled, parsed off the event loop, turned into calendar.meeting deliveries. */
@Module({
  imports: [ConnectorStoreModule, DeliveriesModule],
  providers: [FeedFetcher, IcsWorker, CalendarPoller],
})
export class CalendarModule {}
