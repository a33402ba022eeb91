import { Module } from '@nestjs/common';
import { MembersModule } from '../members/members.module';
import { PlateConsumer } from './plate.consumer';
import { PlateRepository } from './plate.repository';
import { PlateService } from './plate.service';

@Module({
  imports: [MembersModule],
  controllers: [PlateConsumer],
  providers: [
    PlateRepository,
    PlateService,
  ],
})
export class PlateModule {}
