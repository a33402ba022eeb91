import { Module } from '@nestjs/common';
import { RpcModule } from '../rpc/rpc.module';
import { WebhookEndpointsController, WebhookMessagesController } from './webhooks.controller';

/** /v1/webhook-endpoints and /v1/webhook-messages (D-53, D-56). */
@Module({
  imports: [RpcModule],
  controllers: [WebhookEndpointsController, WebhookMessagesController],
})
export class WebhooksHttpModule {}
