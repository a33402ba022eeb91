import { Module } from '@nestjs/common';
import { MemberProjectionConsumer } from '@worktrack/platform';
import { PlateMembersRepository } from './members.repository';

/** Plate's members projection (time zone, working days, capacity, version, active), fed by identity's member states. */
@Module({
  controllers: [MemberProjectionConsumer('plate.members', PlateMembersRepository)],
  providers: [PlateMembersRepository],
  exports: [PlateMembersRepository],
})
export class PlateMembersModule {}
