import { Injectable } from '@nestjs/common';
import type { MemberV1, PlateItemAssignedV1, SessionChangedV1 } from '@worktrack/contracts';
import { DeliveryEngine } from '../delivery/delivery.engine';
import { WebhooksRepository } from '../webhooks.repository';
import { memberMessages, plateMessages, sessionMessages, type OutgoingMessage } from './source-events';

/** D-54: source events become messages for the endpoints that name their type; the engine is woken when any was queued. */
@Injectable()
export class MessagesService {
  constructor(
    private readonly repo: WebhooksRepository,
    private readonly engine: DeliveryEngine,
  ) {}

  sessions(changes: readonly SessionChangedV1[]): Promise<void> {
    return this.queue(changes.flatMap(sessionMessages));
  }

  plate(item: PlateItemAssignedV1): Promise<void> {
    return this.queue(plateMessages(item));
  }

  member(member: MemberV1): Promise<void> {
    return this.queue(memberMessages(member));
  }

  private async queue(messages: OutgoingMessage[]): Promise<void> {
    if ((await this.repo.fanOut(messages)) > 0) this.engine.kick();
  }
}
