import { ApiProperty } from '@nestjs/swagger';
import { Equals, IsOptional, IsString, IsUUID, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { PageQueryDto } from '../pagination/page-query.dto';
import { UUID_PATTERN } from '../openapi/validation-schemas';
import {
  IsCalendarDate,
  MAX_PLATE_TITLE_LENGTH,
  type PlateAssignmentV1,
  type PlateDayV1,
  type PlateItemV1,
  MaxCodePoints,
} from '@worktrack/contracts';

export class AssignPlateDto {
  @JSONSchema({ description: 'A member of your workspace.' })
  @IsUUID()
  assignee_id!: string;

  @JSONSchema({ description: 'What to do.', examples: ['Review the release notes'] })
  @IsString()
  @MinLength(1)
  @MaxCodePoints(MAX_PLATE_TITLE_LENGTH)
  title!: string;

  @JSONSchema({ description: "Default: the assignee's today in the assignee's timezone; earlier dates are PLATE_DATE_IN_PAST." })
  @IsOptional()
  @IsCalendarDate()
  plate_date?: string | null;
}

export class PlateQueryDto extends PageQueryDto {
  @JSONSchema({ description: 'Default: your today in your timezone.' })
  @IsOptional()
  @IsCalendarDate()
  date?: string;
}

export class PlateItemParam {
  @JSONSchema({ pattern: UUID_PATTERN, description: 'The plate item id (a UUID).' })
  @IsUUID(undefined, { message: 'item_id must be a UUID' })
  item_id!: string;
}

export class CompletePlateItemDto {
  @JSONSchema({ description: 'Only `true`: a done item stops counting towards the day.' })
  @Equals(true, { message: 'done must be true' })
  done!: true;
}

/** Spec "Plate assignment result". */
export class PlateAssignmentBody {
  @ApiProperty({ format: 'uuid' }) plate_item_id!: string;
  @ApiProperty({ format: 'uuid' }) assignee_id!: string;
  @ApiProperty({ format: 'date', description: 'Where the item landed.' }) plate_date!: string;
  @ApiProperty({ description: 'True when the item landed on another day than the requested (or default) one.' })
  overflowed!: boolean;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Items on that day that are not done, this one included.' })
  active_count!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: "The assignee's daily capacity." }) capacity!: number;
}

export class PlateItemBody {
  @ApiProperty({ format: 'uuid' }) plate_item_id!: string;
  @ApiProperty({ format: 'uuid' }) assignee_id!: string;
  @ApiProperty({ format: 'uuid', description: 'Who put the item on the plate.' }) assigned_by!: string;
  @ApiProperty({ maxLength: MAX_PLATE_TITLE_LENGTH, example: 'Review the release notes' }) title!: string;
  @ApiProperty({ format: 'date' }) plate_date!: string;
  @ApiProperty() done!: boolean;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) done_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class PlateDayBody {
  @ApiProperty({ format: 'date' }) date!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) capacity!: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) active_count!: number;
  @ApiProperty({ type: [PlateItemBody] }) items!: PlateItemBody[];
}

export const presentAssignment = (a: PlateAssignmentV1): PlateAssignmentBody => ({
  plate_item_id: a.plateItemId,
  assignee_id: a.assigneeId,
  plate_date: a.plateDate,
  overflowed: a.overflowed,
  active_count: a.activeCount,
  capacity: a.capacity,
});

export const presentItem = (i: PlateItemV1): PlateItemBody => ({
  plate_item_id: i.plateItemId,
  assignee_id: i.assigneeId,
  assigned_by: i.assignedBy,
  title: i.title,
  plate_date: i.plateDate,
  done: i.done,
  done_at: i.doneAt ?? null,
  created_at: i.createdAt,
});

export const presentDay = (d: PlateDayV1): PlateDayBody => ({
  date: d.date,
  capacity: d.capacity,
  active_count: d.activeCount,
  items: d.items.map(presentItem),
});
