import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CreateConnector, DeleteConnector, ListConnectors, ListDeliveries, type PayloadOf } from '@worktrack/contracts';
import { HandleCommand } from '@worktrack/platform';
import { ConnectorsService } from './connectors.service';

/** The connector configuration commands on `connectors.commands` (webhooks: webhooks.consumer.ts). */
@Controller()
export class ConnectorsConsumer {
  constructor(private readonly connectors: ConnectorsService) {}

  @HandleCommand(CreateConnector)
  create(@Payload() command: PayloadOf<typeof CreateConnector>) {
    return this.connectors.create(command);
  }

  @HandleCommand(ListConnectors)
  list(@Payload() query: PayloadOf<typeof ListConnectors>) {
    return this.connectors.list(query);
  }

  @HandleCommand(DeleteConnector)
  delete(@Payload() { actor, connectorId }: PayloadOf<typeof DeleteConnector>) {
    return this.connectors.delete(actor, connectorId);
  }

  @HandleCommand(ListDeliveries)
  deliveries(@Payload() query: PayloadOf<typeof ListDeliveries>) {
    return this.connectors.deliveryPage(query);
  }
}
