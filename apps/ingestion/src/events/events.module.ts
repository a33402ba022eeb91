import { Module } from '@nestjs/common';
import { outboxRelayProviders, ServiceConfig, SignedCursor } from '@worktrack/platform';
import { EventsConsumer } from './events.consumer';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';

@Module({
  providers: [
    ...outboxRelayProviders,
    { provide: SignedCursor, inject: [ServiceConfig], useFactory: (config: ServiceConfig) => new SignedCursor(config.CURSOR_SECRET) },
    EventsRepository,
    EventsService,
    EventsConsumer,
  ],
})
export class EventsModule {}
