import { Injectable, type OnModuleInit } from '@nestjs/common';
import { IngestEvents, ListEvents } from '@worktrack/contracts';
import { CommandServer } from '@worktrack/platform';
import { EventsService } from './events.service';

/** Handles `ingestion.events.ingest` and `ingestion.events.list` on `ingestion.commands`. */
@Injectable()
export class EventsConsumer implements OnModuleInit {
  constructor(
    private readonly commands: CommandServer,
    private readonly events: EventsService,
  ) {}

  onModuleInit(): void {
    this.commands
      .handle(IngestEvents, (command, meta) => this.events.ingest(command, meta.messageId))
      .handle(ListEvents, (query) => this.events.list(query));
  }
}
