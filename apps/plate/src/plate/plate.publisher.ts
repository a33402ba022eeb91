import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PlateItemAssigned, PlateItemCompleted, type PlateItemAssignedV1, type PlateItemCompletedV1 } from '@worktrack/contracts';
import { enqueue } from '@worktrack/platform';

/** Items assigned and completed on `plate.events`, written to the outbox in the changing transaction, keyed by the assignee. */
@Injectable()
export class PlatePublisher {
  /** D-54: what webhooks send as `plate.item.assigned`. */
  assigned(manager: EntityManager, item: PlateItemAssignedV1): Promise<void> {
    return enqueue(manager, PlateItemAssigned, item, { key: item.assigneeId });
  }

  /** D-32, D-51: an item marked done (the plate report's `done`). */
  completed(manager: EntityManager, item: PlateItemCompletedV1): Promise<void> {
    return enqueue(manager, PlateItemCompleted, item, { key: item.assigneeId });
  }
}
