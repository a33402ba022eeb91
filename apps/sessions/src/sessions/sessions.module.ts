import { Module } from '@nestjs/common';
import { OutboxRelay } from '@worktrack/platform';
import { SessionsMembersModule } from '../members/members.module';
import { SessionsConsumer } from './sessions.consumer';
import { SessionsPublisher } from './sessions.publisher';
import { SessionsRepository } from './sessions.repository';
import { SessionsService } from './sessions.service';
import { SessionsSweeper } from './sessions.sweeper';

@Module({
  imports: [SessionsMembersModule],
  controllers: [SessionsConsumer],
  providers: [OutboxRelay, SessionsRepository, SessionsPublisher, SessionsService, SessionsSweeper],
})
export class SessionsModule {}
