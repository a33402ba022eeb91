import { Module } from '@nestjs/common';
import { PlateMembersConsumer } from './members.consumer';
import { MembersRepository } from './members.repository';
import { PlateMembersService } from './members.service';

@Module({
  controllers: [PlateMembersConsumer],
  providers: [MembersRepository, PlateMembersService],
  exports: [MembersRepository],
})
export class MembersModule {}
