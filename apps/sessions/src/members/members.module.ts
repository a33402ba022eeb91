import { Module } from '@nestjs/common';
import { MemberProjectionConsumer } from '@worktrack/platform';
import { SessionsMembersRepository } from './members.repository';

/** The members projection (profile time zones, D-29), fed by identity's member states. */
@Module({
  controllers: [MemberProjectionConsumer('sessions.members', SessionsMembersRepository)],
  providers: [SessionsMembersRepository],
  exports: [SessionsMembersRepository],
})
export class SessionsMembersModule {}
