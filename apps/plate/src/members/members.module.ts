import { Module } from '@nestjs/common';
import { MembersConsumer } from './members.consumer';
import { MembersRepository } from './members.repository';

@Module({
  providers: [MembersRepository, MembersConsumer],
  exports: [MembersRepository],
})
export class MembersModule {}
