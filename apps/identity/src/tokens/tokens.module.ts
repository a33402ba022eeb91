import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { MembersModule } from '../members/members.module';
import { TokensConsumer } from './tokens.consumer';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';

@Module({
  imports: [MembersModule, EventsModule],
  providers: [TokensRepository, TokensService, TokensConsumer],
  exports: [TokensService],
})
export class TokensModule {}
