import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { EventsLinked, type PayloadOf } from '@worktrack/contracts';
import { HandleEvents } from '@worktrack/platform';
import { EventLinksService } from './event-links.service';

/** `correlation.links` in group `ingestion.links`: correlation's links, shown in the timeline (D-21, D-31). */
@Controller()
export class TimelineLinksConsumer {
  constructor(private readonly links: EventLinksService) {}

  /** The links of one fetched partition batch in one statement. */
  @HandleEvents(EventsLinked, { group: 'ingestion.links', concurrency: 12, reportLag: true })
  linked(@Payload() messages: Array<PayloadOf<typeof EventsLinked>>) {
    return this.links.applyMany(messages);
  }
}
