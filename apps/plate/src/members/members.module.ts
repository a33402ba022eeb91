import { Module } from '@nestjs/common';
import { PlateMembersConsumer } from './members.consumer';
import { PlateMembersRepository } from './members.repository';
import { PlateMembersService } from './members.service';

@Module({
  controllers: [PlateMembersConsumer],
  providers: [PlateMembersRepository, PlateMembersService],
  exports: [PlateMembersRepository],
})
export class PlateMembersModule {}
