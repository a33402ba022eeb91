import { Module } from '@nestjs/common';
import { outboxRelayProviders } from '@worktrack/platform';
import { LinksConsumer } from './links.consumer';
import { LinksRepository } from './links.repository';
import { LinksService } from './links.service';

@Module({
  providers: [...outboxRelayProviders, LinksRepository, LinksService, LinksConsumer],
})
export class LinksModule {}
