import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsISO8601,
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
import { ActorV1 } from '../identity/member';
import { IsDateTime } from '../calendar';
import { MaxCodePoints } from '../input-safety';
import { defineCommand } from '../message';
import { MAX_EVENTS_PER_BATCH, MAX_EXTERNAL_ID_LENGTH, SLUG_PATTERN } from './activity-event.rules';

/** One event to store, with the gateway's defaults applied (source_type, occurred_at). */
export class ActivityEventInputV1 {
  @Matches(SLUG_PATTERN) sourceType!: string;
  @Matches(SLUG_PATTERN) eventType!: string;
  @IsDateTime() occurredAt!: string;
  @IsObject() payload!: Record<string, unknown>;
  @IsOptional() @IsString() @MaxCodePoints(MAX_EXTERNAL_ID_LENGTH) externalId?: string;
}

/** Stores a batch all-or-nothing (D-17) and answers once it is committed (D-20). */
export class IngestEventsV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsISO8601({ strict: true }) receivedAt!: string;
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_EVENTS_PER_BATCH)
  @ValidateNested({ each: true })
  @Type(() => ActivityEventInputV1)
  events!: ActivityEventInputV1[];
}
export class IngestResultV1 {
  @IsInt() @Min(0) accepted!: number;
  @IsInt() @Min(0) deduplicated!: number;
  /** D-16: one id per submitted event, in order; a duplicate holds the first stored id. */
  @IsArray() @IsUUID('all', { each: true }) eventIds!: string[];
}
export const IngestEvents = defineCommand({
  type: 'ingestion.events.ingest',
  version: 1,
  topic: 'ingestionCommands',
  payload: IngestEventsV1,
  result: IngestResultV1,
});

/** D-21: the caller's timeline, newest first, keyset-paginated. */
export class ListEventsV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsOptional() @IsDateTime() from?: string;
  @IsOptional() @IsDateTime() to?: string;
  @IsOptional() @Matches(SLUG_PATTERN) sourceType?: string;
  @IsOptional() @Matches(SLUG_PATTERN) eventType?: string;
  @IsOptional() @IsUUID() sessionId?: string;
  @IsInt() @Min(1) @Max(100) limit!: number;
  @IsOptional() @IsString() @MaxLength(512) cursor?: string;
}
export class StoredEventV1 {
  @IsUUID() eventId!: string;
  @IsString() sourceType!: string;
  @IsString() eventType!: string;
  @IsString() occurredAt!: string;
  @IsString() receivedAt!: string;
  @IsObject() payload!: Record<string, unknown>;
  @IsOptional() @IsString() externalId!: string | null;
  @IsOptional() @IsUUID() sessionId!: string | null;
}
export class EventPageV1 {
  @IsArray() @ValidateNested({ each: true }) @Type(() => StoredEventV1) events!: StoredEventV1[];
  @IsOptional() @IsString() nextCursor!: string | null;
}
export const ListEvents = defineCommand({
  type: 'ingestion.events.list',
  version: 1,
  topic: 'ingestionCommands',
  payload: ListEventsV1,
  result: EventPageV1,
});
