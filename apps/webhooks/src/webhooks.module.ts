import { Module } from '@nestjs/common';
import { DeliveryEngine } from './delivery/delivery.engine';
import { WebhookSender } from './delivery/sender';
import { EndpointsConsumer } from './endpoints/endpoints.consumer';
import { EndpointsService } from './endpoints/endpoints.service';
import { MessagesService } from './messages/messages.service';
import { SourceEventsConsumer } from './messages/source-events.consumer';
import { SubscriptionIndex } from './messages/subscription-index';
import { WebhooksRepository } from './webhooks.repository';

@Module({
  controllers: [EndpointsConsumer, SourceEventsConsumer],
  providers: [WebhooksRepository, WebhookSender, DeliveryEngine, EndpointsService, MessagesService, SubscriptionIndex],
})
export class WebhooksFeatureModule {}
