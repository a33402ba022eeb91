import { Injectable, type OnModuleInit } from '@nestjs/common';
import { CreateConnector, DeleteConnector, ListConnectors, ListDeliveries, ReceiveWebhook } from '@worktrack/contracts';
import { CommandServer } from '@worktrack/platform';
import { WebhooksService } from '../webhooks/webhooks.service';
import { ConnectorsService } from './connectors.service';

/** Handles the connector commands on `connectors.commands`. */
@Injectable()
export class ConnectorsConsumer implements OnModuleInit {
  constructor(
    private readonly commands: CommandServer,
    private readonly connectors: ConnectorsService,
    private readonly webhooks: WebhooksService,
  ) {}

  onModuleInit(): void {
    this.commands
      .handle(CreateConnector, (command) => this.connectors.create(command))
      .handle(ListConnectors, async ({ actor }) => ({ connectors: await this.connectors.list(actor) }))
      .handle(DeleteConnector, ({ actor, connectorId }) => this.connectors.delete(actor, connectorId))
      .handle(ListDeliveries, (query) => this.connectors.deliveryPage(query))
      .handle(ReceiveWebhook, (command) => this.webhooks.receive(command));
  }
}
