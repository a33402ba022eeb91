import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { FindSessionCover, type PayloadOf } from '@worktrack/contracts';
import { HandleCommand } from '@worktrack/platform';
import { LinksService } from './links.service';

/** `correlation.sessions.cover` on `correlation.commands`: the sessions ingestion's link audit judges its links by (ADR 0016). */
@Controller()
export class SessionCoverConsumer {
  constructor(private readonly links: LinksService) {}

  @HandleCommand(FindSessionCover)
  cover(@Payload() query: PayloadOf<typeof FindSessionCover>) {
    return this.links.sessionCover(query);
  }
}
