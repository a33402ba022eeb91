import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { IdentityMembersConsumer } from './members.consumer';
import { MembersRepository } from './members.repository';
import { MembersService } from './members.service';

@Module({
  imports: [EventsModule],
  controllers: [IdentityMembersConsumer],
  providers: [MembersRepository, MembersService],
  exports: [MembersRepository],
})
export class MembersModule {}
