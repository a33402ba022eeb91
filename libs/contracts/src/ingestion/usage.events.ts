import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMinSize, IsArray, IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, Matches, Min, ValidateNested } from 'class-validator';
import { defineMessage } from '../message';
import { COST_PATTERN, COST_SOURCES, USAGE_CURRENCIES, type CostSource } from './usage.rules';

/** A newly stored usage record as consumers need it (no attributes, no conversation or tool names). */
export class StoredUsageRefV1 {
  @IsUUID() usageId!: string;
  @IsISO8601({ strict: true }) occurredAt!: string;
  @IsString() provider!: string;
  @IsOptional() @IsString() model!: string | null;
  @IsString() operation!: string;
  /** Token counts (D-45): cache counts are part of input, reasoning part of output. Null when not reported. */
  @IsOptional() @IsInt() @Min(0) inputTokens!: number | null;
  @IsOptional() @IsInt() @Min(0) outputTokens!: number | null;
  @IsOptional() @IsInt() @Min(0) cacheReadInputTokens!: number | null;
  @IsOptional() @IsInt() @Min(0) cacheCreationInputTokens!: number | null;
  @IsOptional() @IsInt() @Min(0) reasoningOutputTokens!: number | null;
  /** D-47: the exact decimal (reported as sent, or computed at receipt), null when `costSource` is `none`. */
  @IsOptional() @Matches(COST_PATTERN) cost!: string | null;
  @IsOptional() @IsIn(USAGE_CURRENCIES) currency!: 'USD' | null;
  @IsIn(COST_SOURCES) costSource!: CostSource;
  /**
   * The session the record named itself (D-48: final, correlation leaves it
   * alone), or null: then correlation links it (D-31) and announces the link,
   * and every later change of it, as UsageLinked on `correlation.links`.
   */
  @IsOptional() @IsUUID() sessionId!: string | null;
}

/**
 * Usage records newly stored for a member (duplicates are not repeated), one
 * message per accepted batch, published through ingestion's outbox after the
 * commit, keyed by member id. Correlation links the ones without a session.
 */
export class UsageStoredV1 {
  @IsUUID() memberId!: string;
  @IsUUID() workspaceId!: string;
  @IsArray() @ArrayMinSize(1) @ValidateNested({ each: true }) @Type(() => StoredUsageRefV1) usage!: StoredUsageRefV1[];
}
export const UsageStored = defineMessage({
  type: 'ingestion.usage.stored',
  version: 1,
  topic: 'ingestionUsage',
  payload: UsageStoredV1,
});
