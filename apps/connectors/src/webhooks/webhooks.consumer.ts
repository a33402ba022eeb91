import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { GetWebhookSecret, ReceiveWebhook, type PayloadOf } from '@worktrack/contracts';
import { HandleCommand } from '@worktrack/platform';
import { WebhooksService } from './webhooks.service';

/** The webhook commands on `connectors.commands`: deliveries the gateway verified, and the sealed secret it verifies with. */
@Controller()
export class WebhooksConsumer {
  constructor(private readonly webhooks: WebhooksService) {}

  @HandleCommand(ReceiveWebhook)
  receive(@Payload() command: PayloadOf<typeof ReceiveWebhook>) {
    return this.webhooks.receive(command);
  }

  @HandleCommand(GetWebhookSecret)
  secret(@Payload() query: PayloadOf<typeof GetWebhookSecret>) {
    return this.webhooks.sealedSecret(query);
  }
}
