import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { EventsStored, SessionChanged, UsageStored, type PayloadOf } from '@worktrack/contracts';
import { HandleEvent, HandleEvents, type EventGroupOptions } from '@worktrack/platform';
import { LinksService } from './links.service';

/**
 * `ingestion.events`, `ingestion.usage` and `sessions.events` in group `correlation.events` (the
 * command topic has group `correlation`): at least once, one member's
 * messages in order per topic, poison messages to the dead-letter topic.
 */
const group: EventGroupOptions = { group: 'correlation.events', concurrency: 12, reportLag: true };

@Controller()
export class CorrelationLinksConsumer {
  constructor(private readonly links: LinksService) {}

  /** The EventsStored of one fetched partition batch together, in one transaction. */
  @HandleEvents(EventsStored, group)
  eventsStored(@Payload() messages: Array<PayloadOf<typeof EventsStored>>) {
    return this.links.onEventsStoredMany(messages);
  }

  /** D-48: the UsageStored of one fetched partition batch together. */
  @HandleEvents(UsageStored, group)
  usageStored(@Payload() messages: Array<PayloadOf<typeof UsageStored>>) {
    return this.links.onUsageStoredMany(messages);
  }

  @HandleEvent(SessionChanged, group)
  sessionChanged(@Payload() change: PayloadOf<typeof SessionChanged>) {
    return this.links.onSessionChanged(change);
  }
}
