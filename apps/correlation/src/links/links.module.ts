import { Module } from '@nestjs/common';
import { OutboxRelay } from '@worktrack/platform';
import { CorrelationLinksConsumer } from './links.consumer';
import { LinksPublisher } from './links.publisher';
import { LinksRepository } from './links.repository';
import { LinksService } from './links.service';
import { SessionCoverConsumer } from './session-cover.consumer';

@Module({
  controllers: [CorrelationLinksConsumer, SessionCoverConsumer],
  providers: [OutboxRelay, LinksRepository, LinksPublisher, LinksService],
})
export class LinksModule {}
