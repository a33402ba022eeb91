import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { JSONSchema } from 'class-validator-jsonschema';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import {
  IsDateTime,
  MAX_EVENTS_PER_BATCH,
  MAX_EXTERNAL_ID_LENGTH,
  MAX_PAYLOAD_BYTES,
  MaxCodePoints,
  SLUG_PATTERN,
  type StoredEventV1,
} from '@worktrack/contracts';

/** The `source_type` of an event that names none. */
export const DEFAULT_SOURCE_TYPE = 'custom';

/** The ActivityEvent request object (spec "ActivityEvent"). */
@JSONSchema({ title: 'One event' })
export class ActivityEventDto {
  @JSONSchema({ description: 'Origin slug, e.g. `ci`, `desktop`.', default: DEFAULT_SOURCE_TYPE, examples: ['ci'] })
  @IsOptional()
  @Matches(SLUG_PATTERN, { message: 'source_type must be 1 to 64 characters of a-z, 0-9, _ . -' })
  source_type?: string;

  @JSONSchema({ description: 'What happened, e.g. `deploy`, `test_run`, `cron_job`.', examples: ['deploy'] })
  @Matches(SLUG_PATTERN, { message: 'event_type must be 1 to 64 characters of a-z, 0-9, _ . -' })
  event_type!: string;

  // D-19: at most 10 minutes in the future.
  @JSONSchema({
    description: 'When it happened (RFC 3339 with an offset), at most 10 minutes in the future. Default: the time of receipt.',
    examples: ['2026-03-02T09:30:00Z'],
  })
  @IsOptional()
  @IsDateTime()
  occurred_at?: string;

  // D-18: opaque, at most 32,768 bytes as UTF-8 JSON; no secrets.
  @JSONSchema({
    description: `Opaque metadata: any JSON object of at most 32 KB (${MAX_PAYLOAD_BYTES} bytes as UTF-8 JSON). Must not contain document bodies or secrets.`,
    examples: [{ service: 'api', environment: 'production', version: '1.42.0' }],
  })
  @IsOptional()
  @IsObject({ message: 'payload must be an object' })
  payload?: Record<string, unknown>;

  // D-15: the deduplication key, with source_type.
  @JSONSchema({
    description: "The client's stable id: retries with the same `source_type` and `external_id` are stored once.",
    examples: ['deploy-api-1.42.0'],
  })
  @IsOptional()
  @IsString()
  @MaxCodePoints(MAX_EXTERNAL_ID_LENGTH)
  external_id?: string;
}

@JSONSchema({ title: 'A batch of events', description: 'At most 100 events, stored all or nothing.' })
export class ActivityBatchDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_EVENTS_PER_BATCH)
  @ValidateNested({ each: true })
  @Type(() => ActivityEventDto)
  events!: ActivityEventDto[];
}

/** D-21 query. `from` is inclusive, `to` exclusive. */
export class TimelineQueryDto {
  @IsOptional()
  @IsDateTime()
  from?: string;

  @IsOptional()
  @IsDateTime()
  to?: string;

  @IsOptional()
  @Matches(SLUG_PATTERN)
  source_type?: string;

  @IsOptional()
  @Matches(SLUG_PATTERN)
  event_type?: string;

  @IsOptional()
  @IsUUID()
  session_id?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @IsOptional()
  @IsString()
  @MaxCodePoints(512)
  cursor?: string;
}

/** D-21: an event of the timeline. */
export class StoredEventBody {
  @ApiProperty({ format: 'uuid' })
  event_id!: string;

  @ApiProperty({ pattern: SLUG_PATTERN.source, example: 'ci' })
  source_type!: string;

  @ApiProperty({ pattern: SLUG_PATTERN.source, example: 'deploy' })
  event_type!: string;

  @ApiProperty({ format: 'date-time' })
  occurred_at!: string;

  @ApiProperty({ format: 'date-time' })
  received_at!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Opaque metadata as submitted.',
    example: { service: 'api', environment: 'production', version: '1.42.0' },
  })
  payload!: Record<string, unknown>;

  @ApiProperty({ type: 'string', nullable: true, example: 'deploy-api-1.42.0' })
  external_id!: string | null;

  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'The correlated session; null until correlated or when none covers the event.',
  })
  session_id!: string | null;
}

/** D-16: the answer to an ingestion. */
export class IngestedBody {
  @ApiProperty({ type: 'integer', minimum: 0 })
  accepted!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Events already stored under the same (source_type, external_id).' })
  deduplicated!: number;

  @ApiProperty({
    type: 'array',
    items: { type: 'string', format: 'uuid' },
    description: 'One per submitted event, in order; a duplicate gets the first stored id.',
  })
  event_ids!: string[];
}

export const presentEvent = (e: StoredEventV1): StoredEventBody => ({
  event_id: e.eventId,
  source_type: e.sourceType,
  event_type: e.eventType,
  occurred_at: e.occurredAt,
  received_at: e.receivedAt,
  payload: e.payload,
  external_id: e.externalId ?? null,
  session_id: e.sessionId ?? null,
});
