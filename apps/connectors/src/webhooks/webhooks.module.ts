import { Module } from '@nestjs/common';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { ConnectorStoreModule } from '../store/connector-store.module';
import { WebhooksConsumer } from './webhooks.consumer';
import { WebhooksService } from './webhooks.service';

/** GitHub and Slack webhook intake: verified, mapped, logged as deliveries. */
@Module({
  imports: [ConnectorStoreModule, DeliveriesModule],
  controllers: [WebhooksConsumer],
  providers: [WebhooksService],
})
export class ConnectorsWebhooksModule {}
