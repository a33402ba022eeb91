import { Module } from '@nestjs/common';
import { SessionsMembersConsumer } from './members.consumer';
import { SessionsMembersRepository } from './members.repository';
import { SessionsMembersService } from './members.service';

/** The members projection (profile time zones, D-29), fed by identity's member changes. */
@Module({
  controllers: [SessionsMembersConsumer],
  providers: [SessionsMembersRepository, SessionsMembersService],
  exports: [SessionsMembersRepository],
})
export class SessionsMembersModule {}
