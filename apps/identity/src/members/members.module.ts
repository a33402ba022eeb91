import { Module } from '@nestjs/common';
import { IdentityMembersConsumer } from './members.consumer';
import { MembersPublisher } from './members.publisher';
import { MembersRepository } from './members.repository';
import { MembersService } from './members.service';

@Module({
  controllers: [IdentityMembersConsumer],
  providers: [MembersRepository, MembersPublisher, MembersService],
  exports: [MembersRepository, MembersPublisher],
})
export class MembersModule {}
