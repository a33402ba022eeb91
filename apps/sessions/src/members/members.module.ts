import { Module } from '@nestjs/common';
import { MembersConsumer } from './members.consumer';
import { MembersRepository } from './members.repository';

/** The members projection (profile time zones, D-29), fed by identity's member changes. */
@Module({
  providers: [MembersRepository, MembersConsumer],
  exports: [MembersRepository],
})
export class MembersModule {}
