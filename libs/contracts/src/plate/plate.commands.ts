import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  Equals,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { ActorV1, MemberProfileV1 } from '../identity/member';
import { CALENDAR_DATE_PATTERN, IsCalendarDate } from '../calendar';
import { MaxCodePoints } from '../input-safety';
import { defineCommand } from '../message';
import { MAX_PAGE_SIZE } from '../pagination';

export const MAX_PLATE_TITLE_LENGTH = 500;

/** POST /plate/assign (D-32 … D-35). */
export class AssignPlateItemV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() assigneeId!: string;
  @IsString() @MinLength(1) @MaxCodePoints(MAX_PLATE_TITLE_LENGTH) title!: string;
  /** Default: the assignee's today in the assignee's timezone. */
  @IsOptional() @IsCalendarDate() plateDate?: string;
  /**
   * The assignee as the gateway resolved it with identity (an active member of
   * the actor's workspace): usable before the plate's projection learns of it.
   */
  @IsOptional() @ValidateNested() @Type(() => MemberProfileV1) assignee?: MemberProfileV1;
}
export class PlateAssignmentV1 {
  @IsUUID() plateItemId!: string;
  @IsUUID() assigneeId!: string;
  @Matches(CALENDAR_DATE_PATTERN) plateDate!: string;
  @IsBoolean() overflowed!: boolean;
  @IsInt() @Min(0) activeCount!: number;
  @IsInt() @Min(0) capacity!: number;
}
export const AssignPlateItem = defineCommand({
  type: 'plate.items.assign',
  version: 1,
  topic: 'plateCommands',
  payload: AssignPlateItemV1,
  result: PlateAssignmentV1,
});

export class PlateItemV1 {
  @IsUUID() plateItemId!: string;
  @IsUUID() assigneeId!: string;
  @IsUUID() assignedBy!: string;
  @IsString() title!: string;
  @Matches(CALENDAR_DATE_PATTERN) plateDate!: string;
  @IsBoolean() done!: boolean;
  @IsOptional() @IsString() doneAt!: string | null;
  @IsString() createdAt!: string;
}

/** The caller's own plate for a day (default: today in the caller's timezone). */
export class GetPlateV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsOptional() @IsCalendarDate() date?: string;
  /** Items a page (default MAX_PAGE_SIZE): a day may hold any number of done items. */
  @IsOptional() @IsInt() @Min(1) @Max(MAX_PAGE_SIZE) limit?: number;
  @IsOptional() @IsString() @MaxLength(512) cursor?: string;
}
export class PlateDayV1 {
  @Matches(CALENDAR_DATE_PATTERN) date!: string;
  @IsInt() @Min(0) capacity!: number;
  @IsInt() @Min(0) activeCount!: number;
  @IsArray() @ValidateNested({ each: true }) @Type(() => PlateItemV1) items!: PlateItemV1[];
  @IsOptional() @IsString() nextCursor?: string | null;
}
export const GetPlate = defineCommand({
  type: 'plate.day.get',
  version: 1,
  topic: 'plateCommands',
  payload: GetPlateV1,
  result: PlateDayV1,
});

/** Marks an item done (by its assignee or its assigner), so it stops counting (D-32). */
export class CompletePlateItemV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() plateItemId!: string;
  @Equals(true) done!: true;
}
export const CompletePlateItem = defineCommand({
  type: 'plate.items.complete',
  version: 1,
  topic: 'plateCommands',
  payload: CompletePlateItemV1,
  result: PlateItemV1,
});
