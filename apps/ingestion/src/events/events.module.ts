import { Module } from '@nestjs/common';
import { outboxRelayProviders, ServiceConfig, SignedCursor } from '@worktrack/platform';
import { EventsConsumer } from './events.consumer';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { LinksConsumer } from './links.consumer';

@Module({
  providers: [
    ...outboxRelayProviders,
    { provide: SignedCursor, inject: [ServiceConfig], useFactory: (config: ServiceConfig) => new SignedCursor(config.CURSOR_SECRET) },
    EventsRepository,
    EventsService,
    EventsConsumer,
    LinksConsumer,
  ],
})
export class EventsModule {}
