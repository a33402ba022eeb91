import { Module } from '@nestjs/common';
import { outboxRelayProviders, ServiceConfig, SignedCursor } from '@worktrack/platform';
import { EventLinksService } from './event-links.service';
import { EventsConsumer } from './events.consumer';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { TimelineLinksConsumer } from './links.consumer';

@Module({
  controllers: [EventsConsumer, TimelineLinksConsumer],
  providers: [
    ...outboxRelayProviders,
    { provide: SignedCursor, inject: [ServiceConfig], useFactory: (config: ServiceConfig) => new SignedCursor(config.CURSOR_SECRET) },
    EventsRepository,
    EventsService,
    EventLinksService,
  ],
})
export class EventsModule {}
