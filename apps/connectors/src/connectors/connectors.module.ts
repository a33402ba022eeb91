import { Module } from '@nestjs/common';
import { ServiceConfig, SignedCursor } from '@worktrack/platform';
import { CalendarPoller } from '../calendar/calendar.poller';
import { FeedFetcher } from '../calendar/feed-fetcher';
import { ConnectorsConfig } from '../connectors.config';
import { DeliveriesRepository } from '../deliveries/deliveries.repository';
import { DeliveryProcessor } from '../deliveries/delivery.processor';
import { EventWriter } from '../deliveries/event-writer';
import { CommandClientHost } from '../rpc/command-client.host';
import { SecretBox } from '../secrets/secret-box';
import { WebhooksService } from '../webhooks/webhooks.service';
import { ConnectorsConsumer } from './connectors.consumer';
import { ConnectorsRepository } from './connectors.repository';
import { ConnectorsService } from './connectors.service';

/**
 * The connectors bounded context (D-36): configurations and their secrets,
 * webhook intake, calendar polling, and the delivery log with the processor
 * that writes mapped events through ingestion.
 */
@Module({
  providers: [
    {
      provide: SecretBox,
      inject: [ConnectorsConfig],
      useFactory: (config: ConnectorsConfig) => new SecretBox(config.CONNECTOR_SECRET_KEYS),
    },
    { provide: SignedCursor, inject: [ServiceConfig], useFactory: (config: ServiceConfig) => new SignedCursor(config.CURSOR_SECRET) },
    CommandClientHost,
    ConnectorsRepository,
    DeliveriesRepository,
    EventWriter,
    DeliveryProcessor,
    FeedFetcher,
    CalendarPoller,
    WebhooksService,
    ConnectorsService,
    ConnectorsConsumer,
  ],
  exports: [DeliveryProcessor, CalendarPoller],
})
export class ConnectorsModule {}
