import { Module } from '@nestjs/common';
import { outboxRelayProviders } from '@worktrack/platform';
import { CorrelationLinksConsumer } from './links.consumer';
import { LinksPublisher } from './links.publisher';
import { LinksRepository } from './links.repository';
import { LinksService } from './links.service';

@Module({
  controllers: [CorrelationLinksConsumer],
  providers: [...outboxRelayProviders, LinksRepository, LinksPublisher, LinksService],
})
export class LinksModule {}
