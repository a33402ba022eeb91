import 'reflect-metadata';
import { IsBoolean, IsString, IsUUID, Matches } from 'class-validator';
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
  @IsString() createdAt!: string;
}
export const PlateItemAssigned = defineMessage({
  type: 'plate.item.assigned',
  version: 1,
  topic: 'plateEvents',
  payload: PlateItemAssignedV1,
});
