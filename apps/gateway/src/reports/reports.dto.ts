import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import {
  IsCalendarDate,
  MAX_REPORT_PAGE_SIZE,
  MaxCodePoints,
  MEMBER_KINDS,
  REPORT_GROUP_BYS,
  WORK_TYPES,
  type MemberKind,
  type WorkType,
} from '@worktrack/contracts';

/** The query every report takes. */
export class ReportQueryDto {
  @JSONSchema({ type: 'string', format: 'date', description: 'First day of the period (inclusive), a calendar date in `tz`.' })
  @IsCalendarDate()
  from!: string;

  @JSONSchema({ type: 'string', format: 'date', description: 'Last day of the period (inclusive); at most 366 days after `from`.' })
  @IsCalendarDate()
  to!: string;

  @JSONSchema({ description: "IANA time zone the days are cut in; default the caller's.", examples: ['Europe/Berlin'] })
  @IsOptional()
  @IsString()
  @MaxCodePoints(64)
  tz?: string;

  @JSONSchema({
    description: `Comma-separated, at most two of: ${REPORT_GROUP_BYS.map((g) => `\`${g}\``).join(', ')} (summary only).`,
    examples: ['member,week'],
  })
  @IsOptional()
  @IsString()
  @MaxCodePoints(64)
  group_by?: string;

  @IsOptional()
  @IsUUID()
  member_id?: string;

  @IsOptional()
  @IsIn(MEMBER_KINDS)
  member_kind?: MemberKind;

  @IsOptional()
  @IsIn(WORK_TYPES)
  work_type?: WorkType;

  @IsOptional()
  @IsUUID()
  project_id?: string;

  @IsOptional()
  @IsUUID()
  goal_id?: string;

  @JSONSchema({ description: 'Sessions report: page size (default 50).' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_REPORT_PAGE_SIZE)
  limit?: number;

  @JSONSchema({ description: 'Sessions report: `meta.cursor` of the previous page.' })
  @IsOptional()
  @IsString()
  @MaxCodePoints(512)
  cursor?: string;
}

export class ReportGroupBody {
  @ApiPropertyOptional({ format: 'uuid' }) member_id?: string;
  @ApiPropertyOptional({ enum: MEMBER_KINDS }) member_kind?: MemberKind;
  @ApiPropertyOptional({ enum: WORK_TYPES, nullable: true }) work_type?: WorkType | null;
  @ApiPropertyOptional({ type: 'string', format: 'uuid', nullable: true }) project_id?: string | null;
  @ApiPropertyOptional({ type: 'string', format: 'uuid', nullable: true }) goal_id?: string | null;
  @ApiPropertyOptional({ format: 'date' }) day?: string;
  @ApiPropertyOptional({ format: 'date', description: "The ISO week's Monday." }) week?: string;
}

export class ReportMetricsBody {
  @ApiProperty({ type: 'integer', description: 'Active time, pauses excluded, in whole seconds.' }) tracked_seconds!: number;
  @ApiProperty({ type: 'integer' }) paused_seconds!: number;
  @ApiProperty({ type: 'integer', description: 'Sessions counted once, on the day they started.' }) session_count!: number;
  @ApiProperty({ type: 'integer' }) linked_event_count!: number;
  @ApiProperty({ type: 'integer', description: 'Events no session covers.' }) outside_session_event_count!: number;
  @ApiProperty({ example: '1.25', description: 'USD, exact decimal string; "0" when none.' }) usage_cost!: string;
  @ApiProperty({ type: 'integer' }) input_tokens!: number;
  @ApiProperty({ type: 'integer' }) output_tokens!: number;
}

export class SummaryRowBody extends ReportMetricsBody {
  @ApiProperty({ type: ReportGroupBody, description: 'The keys of the requested `group_by`.' }) group!: ReportGroupBody;
}

export class ReportSessionRowBody {
  @ApiProperty({ format: 'uuid' }) session_id!: string;
  @ApiProperty({ format: 'uuid' }) member_id!: string;
  @ApiProperty({ example: 'Fix the flaky login test' }) intent_text!: string;
  @ApiProperty({ enum: ['active', 'paused', 'closed'] }) state!: string;
  @ApiProperty({ enum: ['timer', 'manual'] }) source!: string;
  @ApiProperty({ enum: WORK_TYPES }) work_type!: string;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true }) goal_id!: string | null;
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true }) project_id!: string | null;
  @ApiProperty({ format: 'date-time' }) started_at!: string;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) closed_at!: string | null;
  @ApiProperty({ type: [String], example: ['billing'] }) user_tags!: string[];
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: 'integer' }) tracked_seconds!: number;
  @ApiProperty({ type: 'integer' }) paused_seconds!: number;
  @ApiProperty({ type: 'integer' }) linked_event_count!: number;
  @ApiProperty({ example: '0.42' }) usage_cost!: string;
}

export class ActivityRowBody {
  @ApiProperty({ example: 'github' }) source_type!: string;
  @ApiProperty({ example: 'pull_request.merged' }) event_type!: string;
  @ApiProperty({ type: 'integer' }) in_session!: number;
  @ApiProperty({ type: 'integer' }) outside_session!: number;
}

export class PlateRowBody {
  @ApiProperty({ format: 'uuid' }) assignee_id!: string;
  @ApiProperty({ format: 'date' }) day!: string;
  @ApiProperty({ type: 'integer' }) capacity!: number;
  @ApiProperty({ type: 'integer', description: 'Items whose plate date is that day.' }) assigned!: number;
  @ApiProperty({ type: 'integer' }) done!: number;
  @ApiProperty({ type: 'integer', description: 'Items that landed there though asked for an earlier day.' }) overflowed_in!: number;
  @ApiProperty({ type: 'integer', description: 'Items asked for that day that landed later.' }) overflowed_out!: number;
}
