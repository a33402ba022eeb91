import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  CreateWebhookEndpoint,
  DeleteWebhookEndpoint,
  GetWebhookEndpoint,
  ListWebhookAttempts,
  ListWebhookEndpoints,
  RecoverWebhookMessages,
  ReplayWebhookMessage,
  RotateWebhookSecret,
  TestWebhookEndpoint,
  UpdateWebhookEndpoint,
  type PayloadOf,
} from '@worktrack/contracts';
import { HandleCommand } from '@worktrack/platform';
import { EndpointsService } from './endpoints.service';

/** The webhook commands on `webhooks.commands` (D-53, D-56). */
@Controller()
export class EndpointsConsumer {
  constructor(private readonly endpoints: EndpointsService) {}

  @HandleCommand(CreateWebhookEndpoint)
  create(@Payload() command: PayloadOf<typeof CreateWebhookEndpoint>) {
    return this.endpoints.create(command);
  }

  @HandleCommand(ListWebhookEndpoints)
  list(@Payload() query: PayloadOf<typeof ListWebhookEndpoints>) {
    return this.endpoints.list(query);
  }

  @HandleCommand(GetWebhookEndpoint)
  get(@Payload() { actor, endpointId }: PayloadOf<typeof GetWebhookEndpoint>) {
    return this.endpoints.get(actor, endpointId);
  }

  @HandleCommand(UpdateWebhookEndpoint)
  update(@Payload() command: PayloadOf<typeof UpdateWebhookEndpoint>) {
    return this.endpoints.update(command);
  }

  @HandleCommand(DeleteWebhookEndpoint)
  remove(@Payload() { actor, endpointId }: PayloadOf<typeof DeleteWebhookEndpoint>) {
    return this.endpoints.remove(actor, endpointId);
  }

  @HandleCommand(RotateWebhookSecret)
  rotate(@Payload() { actor, endpointId }: PayloadOf<typeof RotateWebhookSecret>) {
    return this.endpoints.rotate(actor, endpointId);
  }

  @HandleCommand(TestWebhookEndpoint)
  test(@Payload() { actor, endpointId }: PayloadOf<typeof TestWebhookEndpoint>) {
    return this.endpoints.test(actor, endpointId);
  }

  @HandleCommand(ListWebhookAttempts)
  attempts(@Payload() query: PayloadOf<typeof ListWebhookAttempts>) {
    return this.endpoints.attempts(query);
  }

  @HandleCommand(ReplayWebhookMessage)
  replay(@Payload() { actor, webhookId }: PayloadOf<typeof ReplayWebhookMessage>) {
    return this.endpoints.replay(actor, webhookId);
  }

  @HandleCommand(RecoverWebhookMessages)
  recover(@Payload() command: PayloadOf<typeof RecoverWebhookMessages>) {
    return this.endpoints.recover(command);
  }
}
