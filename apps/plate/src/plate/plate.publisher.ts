import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PlateItemAssigned, type PlateItemAssignedV1 } from '@worktrack/contracts';
import { enqueue } from '@worktrack/platform';

/** Items assigned on `plate.events`, written to the outbox in the assigning transaction, keyed by the assignee. */
@Injectable()
export class PlatePublisher {
  /** D-54: what webhooks send as `plate.item.assigned`. */
  assigned(manager: EntityManager, item: PlateItemAssignedV1): Promise<void> {
    return enqueue(manager, PlateItemAssigned, item, { key: item.assigneeId });
  }
}
