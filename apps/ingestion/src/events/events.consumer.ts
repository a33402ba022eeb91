import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { IngestEvents, ListEvents, type PayloadOf } from '@worktrack/contracts';
import { ContractContext, HandleCommand } from '@worktrack/platform';
import { EventsService } from './events.service';

/** `ingestion.events.ingest` and `ingestion.events.list` on `ingestion.commands`. */
@Controller()
export class EventsConsumer {
  constructor(private readonly events: EventsService) {}

  @HandleCommand(IngestEvents)
  ingest(@Payload() command: PayloadOf<typeof IngestEvents>, @Ctx() ctx: ContractContext) {
    return this.events.ingest(command, ctx.messageId);
  }

  @HandleCommand(ListEvents)
  list(@Payload() query: PayloadOf<typeof ListEvents>) {
    return this.events.list(query);
  }
}
