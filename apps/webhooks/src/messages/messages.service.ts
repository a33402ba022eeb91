import { Injectable } from '@nestjs/common';
import type { MemberV1, PlateItemAssignedV1, SessionChangedV1 } from '@worktrack/contracts';
import { DeliveryEngine } from '../delivery/delivery.engine';
import { WebhooksRepository } from '../webhooks.repository';
import { SubscriptionIndex } from './subscription-index';
import { memberMessages, plateMessages, sessionMessages, type OutgoingMessage } from './source-events';

/**
 * D-54: source events become messages for the endpoints that name their
 * type; the engine is woken when any was queued. Messages of workspaces
 * that subscribe to nothing cost no statement (SubscriptionIndex).
 */
@Injectable()
export class MessagesService {
  constructor(
    private readonly repo: WebhooksRepository,
    private readonly engine: DeliveryEngine,
    private readonly subscriptions: SubscriptionIndex,
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
    const wanted = await this.subscriptions.wanted(messages);
    if (wanted.length > 0 && (await this.repo.fanOut(wanted)) > 0) this.engine.kick();
  }
}
