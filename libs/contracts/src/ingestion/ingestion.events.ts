import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMinSize, IsArray, IsBoolean, IsISO8601, IsOptional, IsString, IsUUID, ValidateNested } from 'class-validator';
import { defineMessage } from '../message';

export class StoredEventRefV1 {
  @IsUUID() eventId!: string;
  @IsISO8601({ strict: true }) occurredAt!: string;
  /** The event's kind (D-19), for reports that count events by it. Absent in messages written before they were added. */
  @IsOptional() @IsString() sourceType?: string;
  @IsOptional() @IsString() eventType?: string;
}

/**
 * Events newly stored for a member (duplicates are not repeated), one message
 * per accepted batch, published through ingestion's outbox after the commit.
 * Correlation links each to the session running at `occurredAt`.
 */
export class EventsStoredV1 {
  @IsUUID() memberId!: string;
  @IsUUID() workspaceId!: string;
  @IsArray() @ArrayMinSize(1) @ValidateNested({ each: true }) @Type(() => StoredEventRefV1) events!: StoredEventRefV1[];
  /**
   * Set by ingestion's link audit (ADR 0016) for events announced before whose
   * link it finds wrong: correlation stores the ones it never saw, as usual,
   * and publishes again the current link of those it holds. Absent otherwise.
   */
  @IsOptional() @IsBoolean() replay?: boolean;
}
export const EventsStored = defineMessage({
  type: 'ingestion.events.stored',
  version: 1,
  topic: 'ingestionEvents',
  payload: EventsStoredV1,
});
