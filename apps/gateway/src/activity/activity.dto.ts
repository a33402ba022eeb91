import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
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
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { MAX_EVENTS_PER_BATCH, RFC3339_PATTERN, MAX_EXTERNAL_ID_LENGTH, SLUG_PATTERN, type StoredEventV1 } from '@worktrack/contracts';

/** The ActivityEvent request object (spec "ActivityEvent"). */
export class ActivityEventDto {
  /** Origin slug; default `custom`. */
  @IsOptional()
  @Matches(SLUG_PATTERN, { message: 'source_type must be 1 to 64 characters of a-z, 0-9, _ . -' })
  source_type?: string;

  @Matches(SLUG_PATTERN, { message: 'event_type must be 1 to 64 characters of a-z, 0-9, _ . -' })
  event_type!: string;

  /** Default: the time of receipt. At most 10 minutes in the future (D-19). */
  @IsOptional()
  @Matches(RFC3339_PATTERN, { message: 'occurred_at must be an RFC 3339 date-time with an offset' })
  occurred_at?: string;

  /** Opaque metadata, at most 32,768 bytes as UTF-8 JSON (D-18); no secrets. */
  @IsOptional()
  @IsObject({ message: 'payload must be an object' })
  payload?: Record<string, unknown>;

  /** The client's stable id: the deduplication key with source_type (D-15). */
  @IsOptional()
  @IsString()
  @MaxLength(MAX_EXTERNAL_ID_LENGTH)
  external_id?: string;
}

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
  @Matches(RFC3339_PATTERN, { message: 'from must be an RFC 3339 date-time with an offset' })
  from?: string;

  @IsOptional()
  @Matches(RFC3339_PATTERN, { message: 'to must be an RFC 3339 date-time with an offset' })
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
  @MaxLength(512)
  cursor?: string;
}

/** D-21: an event of the timeline. */
export class StoredEventBody {
  @ApiProperty({ format: 'uuid' })
  event_id!: string;

  @ApiProperty({ pattern: SLUG_PATTERN.source })
  source_type!: string;

  @ApiProperty({ pattern: SLUG_PATTERN.source })
  event_type!: string;

  @ApiProperty({ format: 'date-time' })
  occurred_at!: string;

  @ApiProperty({ format: 'date-time' })
  received_at!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Opaque metadata as submitted.' })
  payload!: Record<string, unknown>;

  @ApiProperty({ type: 'string', nullable: true })
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

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Events already stored under the same (source_type, external_id) (D-15).' })
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
