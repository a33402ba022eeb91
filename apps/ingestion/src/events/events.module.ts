import { Module } from '@nestjs/common';
import { OutboxRelay } from '@worktrack/platform';
import { EventLinksService } from './event-links.service';
import { EventsConsumer } from './events.consumer';
import { EventsPublisher } from './events.publisher';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { TimelineLinksConsumer } from './links.consumer';

@Module({
  controllers: [EventsConsumer, TimelineLinksConsumer],
  providers: [OutboxRelay, EventsRepository, EventsPublisher, EventsService, EventLinksService],
})
export class EventsModule {}
