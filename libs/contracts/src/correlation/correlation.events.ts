import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMinSize, IsArray, IsInt, IsOptional, IsUUID, Min, ValidateNested } from 'class-validator';
import { defineMessage } from '../message';

export class EventLinkV1 {
  @IsUUID() eventId!: string;
  /** The session running when the event happened (D-31), or null when none covers it. */
  @IsOptional() @IsUUID() sessionId!: string | null;
  /** Grows with every change of this event's link: apply a link only if newer than the one held. */
  @IsInt() @Min(1) version!: number;
}

/** Links that changed for a member's events, published by correlation through its outbox. */
export class EventsLinkedV1 {
  @IsUUID() memberId!: string;
  @IsArray() @ArrayMinSize(1) @ValidateNested({ each: true }) @Type(() => EventLinkV1) links!: EventLinkV1[];
}
export const EventsLinked = defineMessage({
  type: 'correlation.events.linked',
  version: 1,
  topic: 'correlationLinks',
  payload: EventsLinkedV1,
});

export class UsageLinkV1 {
  @IsUUID() usageId!: string;
  /** The session running when the usage occurred (D-31, D-48), or null when none covers it. */
  @IsOptional() @IsUUID() sessionId!: string | null;
  /** Grows with every change of this record's link: apply a link only if newer than the one held. */
  @IsInt() @Min(1) version!: number;
}

/**
 * Links that changed for a member's usage records without a session of their
 * own (D-48), published by correlation through its outbox, keyed by member id.
 */
export class UsageLinkedV1 {
  @IsUUID() memberId!: string;
  @IsArray() @ArrayMinSize(1) @ValidateNested({ each: true }) @Type(() => UsageLinkV1) links!: UsageLinkV1[];
}
export const UsageLinked = defineMessage({
  type: 'correlation.usage.linked',
  version: 1,
  topic: 'correlationLinks',
  payload: UsageLinkedV1,
});
