import { Module } from '@nestjs/common';
import { PlateMembersModule } from '../members/members.module';
import { PlateConsumer } from './plate.consumer';
import { PlateRepository } from './plate.repository';
import { PlateService } from './plate.service';

@Module({
  imports: [PlateMembersModule],
  controllers: [PlateConsumer],
  providers: [PlateRepository, PlateService],
})
export class PlateModule {}
