import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { EventsLinked, type PayloadOf } from '@worktrack/contracts';
import { HandleEvent } from '@worktrack/platform';
import { EventLinksService } from './event-links.service';

/** `correlation.links` in group `ingestion.links`: correlation's links, shown in the timeline (D-21, D-31). */
@Controller()
export class TimelineLinksConsumer {
  constructor(private readonly links: EventLinksService) {}

  @HandleEvent(EventsLinked, { group: 'ingestion.links', concurrency: 12, reportLag: true })
  linked(@Payload() message: PayloadOf<typeof EventsLinked>) {
    return this.links.apply(message);
  }
}
