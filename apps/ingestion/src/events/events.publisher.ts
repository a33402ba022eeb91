import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { EventsStored, type ActorV1 } from '@worktrack/contracts';
import { enqueue } from '@worktrack/platform';

/**
 * Newly stored events on `ingestion.events`, for correlation: written to the
 * outbox in the transaction that stored them (published if and only if it
 * commits), keyed by member id.
 */
@Injectable()
export class EventsPublisher {
  stored(
    manager: EntityManager,
    actor: Pick<ActorV1, 'memberId' | 'workspaceId'>,
    events: Array<{ id: string; occurredAt: string }>,
  ): Promise<void> {
    return enqueue(
      manager,
      EventsStored,
      {
        memberId: actor.memberId,
        workspaceId: actor.workspaceId,
        events: events.map((e) => ({ eventId: e.id, occurredAt: e.occurredAt })),
      },
      { key: actor.memberId },
    );
  }
}
