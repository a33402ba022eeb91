import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { MemberChanged, PlateItemAssigned, SessionChanged, type PayloadOf } from '@worktrack/contracts';
import { HandleEvent, HandleEvents } from '@worktrack/platform';
import { MessagesService } from './messages.service';

/**
 * D-54: the domain topics, read as they are (sessions, plate, identity),
 * turned into messages for the endpoints that name their type. Every
 * message id comes from its source event, so a record consumed again (a
 * rebalance, a restart before the commit) stores nothing new.
 */
@Controller()
export class SourceEventsConsumer {
  constructor(private readonly messages: MessagesService) {}

  @HandleEvents(SessionChanged, { group: 'webhooks.sessions', concurrency: 6 })
  sessions(@Payload() changes: Array<PayloadOf<typeof SessionChanged>>): Promise<void> {
    return this.messages.sessions(changes);
  }

  @HandleEvent(PlateItemAssigned, { group: 'webhooks.plate' })
  plate(@Payload() item: PayloadOf<typeof PlateItemAssigned>): Promise<void> {
    return this.messages.plate(item);
  }

  @HandleEvent(MemberChanged, { group: 'webhooks.members' })
  members(@Payload() member: PayloadOf<typeof MemberChanged>): Promise<void> {
    return this.messages.member(member);
  }
}
