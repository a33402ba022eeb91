import { Module } from '@nestjs/common';
import { OutboxRelay } from '@worktrack/platform';
import { EventLinksService } from './event-links.service';
import { EventsConsumer } from './events.consumer';
import { EventsPublisher } from './events.publisher';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { LinkAuditRepository } from './link-audit.repository';
import { LinkAuditWorker } from './link-audit.worker';
import { TimelineLinksConsumer } from './links.consumer';
import { IngestionRpcModule } from '../rpc/rpc.module';

@Module({
  imports: [IngestionRpcModule],
  controllers: [EventsConsumer, TimelineLinksConsumer],
  providers: [OutboxRelay, EventsRepository, EventsPublisher, EventsService, EventLinksService, LinkAuditRepository, LinkAuditWorker],
})
export class EventsModule {}
