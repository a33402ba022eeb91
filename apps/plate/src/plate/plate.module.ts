import { Module } from '@nestjs/common';
import { OutboxRelay } from '@worktrack/platform';
import { PlateMembersModule } from '../members/members.module';
import { PlateConsumer } from './plate.consumer';
import { PlateRepository } from './plate.repository';
import { PlateService } from './plate.service';

@Module({
  imports: [PlateMembersModule],
  controllers: [PlateConsumer],
  providers: [OutboxRelay, PlateRepository, PlateService],
})
export class PlateModule {}
