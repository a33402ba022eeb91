import { Module } from '@nestjs/common';
import { OutboxRelay } from '@worktrack/platform';
import { PlateMembersModule } from '../members/members.module';
import { PlateConsumer } from './plate.consumer';
import { PlatePublisher } from './plate.publisher';
import { PlateRepository } from './plate.repository';
import { PlateService } from './plate.service';

@Module({
  imports: [PlateMembersModule],
  controllers: [PlateConsumer],
  providers: [OutboxRelay, PlatePublisher, PlateRepository, PlateService],
})
export class PlateModule {}
