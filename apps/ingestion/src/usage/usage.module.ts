import { Module } from '@nestjs/common';
import { UsageConsumer } from './usage.consumer';
import { UsagePublisher } from './usage.publisher';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

/** Usage records and price lists (D-45 … D-48); their outbox rows go out through the events module's relay (one per schema). */
@Module({
  controllers: [UsageConsumer],
  providers: [UsageRepository, UsagePublisher, UsageService],
})
export class UsageModule {}
