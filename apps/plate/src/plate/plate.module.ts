import { Module } from '@nestjs/common';
import { ServiceConfig, SignedCursor } from '@worktrack/platform';
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
    { provide: SignedCursor, inject: [ServiceConfig], useFactory: (config: ServiceConfig) => new SignedCursor(config.CURSOR_SECRET) },
  ],
})
export class PlateModule {}
