import 'reflect-metadata';
import { IsBoolean, IsOptional, IsString, IsUUID, Matches } from 'class-validator';
import { CALENDAR_DATE_PATTERN } from '../calendar';
import { defineMessage } from '../message';

/**
 * An item was put on a member's plate (D-33): published through the plate
 * outbox in the assigning transaction, keyed by the assignee's member id.
 * The item id is derived from the assigning command, so a redelivered
 * command never announces a second item.
 */
export class PlateItemAssignedV1 {
  @IsUUID() plateItemId!: string;
  @IsUUID() workspaceId!: string;
  @IsUUID() assigneeId!: string;
  @IsUUID() assignedBy!: string;
  @IsString() title!: string;
  @Matches(CALENDAR_DATE_PATTERN) plateDate!: string;
  @IsBoolean() overflowed!: boolean;
  /**
   * The day asked for (or the assignee's today by default), which differs
   * from `plateDate` exactly when `overflowed` (D-33). Absent from items
   * announced before it was carried.
   */
  @IsOptional() @Matches(CALENDAR_DATE_PATTERN) requestedDate?: string;
  @IsString() createdAt!: string;
}
export const PlateItemAssigned = defineMessage({
  type: 'plate.item.assigned',
  version: 1,
  topic: 'plateEvents',
  payload: PlateItemAssignedV1,
});

/**
 * An item was marked done (D-32): published through the plate outbox in the
 * completing transaction, once per item (completing a done item again
 * announces nothing), keyed by the assignee's member id like the assignment.
 * It carries the item's day, so a reader that sees it before the assignment
 * can still place it.
 */
export class PlateItemCompletedV1 {
  @IsUUID() plateItemId!: string;
  @IsUUID() workspaceId!: string;
  @IsUUID() assigneeId!: string;
  @IsUUID() completedBy!: string;
  @Matches(CALENDAR_DATE_PATTERN) plateDate!: string;
  @IsString() doneAt!: string;
}
export const PlateItemCompleted = defineMessage({
  type: 'plate.item.completed',
  version: 1,
  topic: 'plateEvents',
  payload: PlateItemCompletedV1,
});
