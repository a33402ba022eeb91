import { Module } from '@nestjs/common';
import { OutboxRelay } from '@worktrack/platform';
import { MembersModule } from '../members/members.module';
import { SessionsConsumer } from './sessions.consumer';
import { SessionsPublisher } from './sessions.publisher';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';
import { SessionsSweeper } from './sessions.sweeper';

@Module({
  imports: [MembersModule],
  controllers: [SessionsConsumer],
  providers: [
    OutboxRelay,
    SessionsRepository,
    SessionsPublisher,
    SessionsService,
    SessionsSweeper,
  ],
})
export class SessionsModule {}
