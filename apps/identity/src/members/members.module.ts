import { Module } from '@nestjs/common';
import { MembersConsumer } from './members.consumer';
import { MembersRepository } from './members.repository';
import { MembersService } from './members.service';

@Module({
  providers: [MembersRepository, MembersService, MembersConsumer],
  exports: [MembersRepository],
})
export class MembersModule {}
