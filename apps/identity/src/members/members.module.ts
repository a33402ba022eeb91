import { Module } from '@nestjs/common';
import { IdentityMembersConsumer } from './members.consumer';
import { MembersPublisher } from './members.publisher';
import { IdentityMembersRepository } from './members.repository';
import { MembersService } from './members.service';

@Module({
  controllers: [IdentityMembersConsumer],
  providers: [IdentityMembersRepository, MembersPublisher, MembersService],
  exports: [IdentityMembersRepository, MembersPublisher],
})
export class IdentityMembersModule {}
