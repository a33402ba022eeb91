import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
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
  MinLength,
  ValidateNested,
} from 'class-validator';
import { ActorV1 } from '../identity/member';
import { IsDateTime } from '../calendar';
import { MaxCodePoints } from '../input-safety';
import { defineCommand } from '../message';
import { MAX_EXTERNAL_ID_LENGTH, SLUG_PATTERN } from './activity-event.rules';
import {
  COST_PATTERN,
  COST_SOURCES,
  MAX_CONVERSATION_ID_LENGTH,
  MAX_MODEL_LENGTH,
  MAX_PRICES,
  MAX_TOOL_NAME_LENGTH,
  MAX_USAGE_DURATION_MS,
  MAX_USAGE_PER_BATCH,
  MAX_USAGE_TOKENS,
  MODEL_PATTERN_PATTERN,
  PRICE_PATTERN,
  USAGE_CURRENCIES,
  type CostSource,
} from './usage.rules';

/** D-45: an exact amount, as a decimal string (never a float). */
export class MoneyV1 {
  @Matches(COST_PATTERN) amount!: string;
  @IsIn(USAGE_CURRENCIES) currency!: 'USD';
}

/** One usage record to store (D-45), with the gateway's defaults applied (operation, occurred_at). */
export class UsageInputV1 {
  @IsString() @MinLength(1) @MaxCodePoints(MAX_EXTERNAL_ID_LENGTH) externalId!: string;
  @Matches(SLUG_PATTERN) provider!: string;
  @IsOptional() @IsString() @MinLength(1) @MaxCodePoints(MAX_MODEL_LENGTH) model?: string;
  @Matches(SLUG_PATTERN) operation!: string;
  @IsDateTime() occurredAt!: string;
  @IsOptional() @IsInt() @Min(0) @Max(MAX_USAGE_DURATION_MS) durationMs?: number;
  @IsOptional() @IsInt() @Min(0) @Max(MAX_USAGE_TOKENS) inputTokens?: number;
  @IsOptional() @IsInt() @Min(0) @Max(MAX_USAGE_TOKENS) outputTokens?: number;
  @IsOptional() @IsInt() @Min(0) @Max(MAX_USAGE_TOKENS) cacheReadInputTokens?: number;
  @IsOptional() @IsInt() @Min(0) @Max(MAX_USAGE_TOKENS) cacheCreationInputTokens?: number;
  @IsOptional() @IsInt() @Min(0) @Max(MAX_USAGE_TOKENS) reasoningOutputTokens?: number;
  @IsOptional() @ValidateNested() @Type(() => MoneyV1) cost?: MoneyV1;
  /** The caller's own session, checked by the gateway (D-45); it wins over correlation (D-48). */
  @IsOptional() @IsUUID() sessionId?: string;
  @IsOptional() @IsString() @MaxCodePoints(MAX_CONVERSATION_ID_LENGTH) conversationId?: string;
  @IsOptional() @IsString() @MaxCodePoints(MAX_TOOL_NAME_LENGTH) toolName?: string;
  @IsObject() attributes!: Record<string, unknown>;
}

/** Stores a batch all-or-nothing (D-45, D-17), deduplicated on (member, provider, external_id) (D-46); answers once committed (D-20). */
export class IngestUsageV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsISO8601({ strict: true }) receivedAt!: string;
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_USAGE_PER_BATCH)
  @ValidateNested({ each: true })
  @Type(() => UsageInputV1)
  usage!: UsageInputV1[];
}
export class IngestUsageResultV1 {
  @IsInt() @Min(0) accepted!: number;
  @IsInt() @Min(0) deduplicated!: number;
  /** D-45 as D-16: one id per submitted record, in order; a duplicate holds the first stored id. */
  @IsArray() @IsUUID('all', { each: true }) usageIds!: string[];
}
export const IngestUsage = defineCommand({
  type: 'ingestion.usage.ingest',
  version: 1,
  topic: 'ingestionCommands',
  payload: IngestUsageV1,
  result: IngestUsageResultV1,
});

/** D-48: the caller's usage, newest `occurred_at` first, keyset-paginated. */
export class ListUsageV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsOptional() @IsDateTime() from?: string;
  @IsOptional() @IsDateTime() to?: string;
  @IsOptional() @IsUUID() sessionId?: string;
  @IsOptional() @Matches(SLUG_PATTERN) provider?: string;
  @IsOptional() @IsString() @MaxCodePoints(MAX_MODEL_LENGTH) model?: string;
  @IsInt() @Min(1) @Max(100) limit!: number;
  @IsOptional() @IsString() @MaxLength(512) cursor?: string;
}
/** A stored usage record (D-48): every stored field, its cost and where the cost came from. */
export class StoredUsageV1 {
  @IsUUID() usageId!: string;
  @IsString() externalId!: string;
  @IsString() provider!: string;
  @IsOptional() @IsString() model!: string | null;
  @IsString() operation!: string;
  @IsString() occurredAt!: string;
  @IsString() receivedAt!: string;
  @IsOptional() @IsInt() durationMs!: number | null;
  @IsOptional() @IsInt() inputTokens!: number | null;
  @IsOptional() @IsInt() outputTokens!: number | null;
  @IsOptional() @IsInt() cacheReadInputTokens!: number | null;
  @IsOptional() @IsInt() cacheCreationInputTokens!: number | null;
  @IsOptional() @IsInt() reasoningOutputTokens!: number | null;
  @IsOptional() @ValidateNested() @Type(() => MoneyV1) cost!: MoneyV1 | null;
  @IsIn(COST_SOURCES) costSource!: CostSource;
  @IsOptional() @IsUUID() sessionId!: string | null;
  @IsOptional() @IsString() conversationId!: string | null;
  @IsOptional() @IsString() toolName!: string | null;
  @IsObject() attributes!: Record<string, unknown>;
}
export class UsagePageV1 {
  @IsArray() @ValidateNested({ each: true }) @Type(() => StoredUsageV1) usage!: StoredUsageV1[];
  @IsOptional() @IsString() nextCursor!: string | null;
}
export const ListUsage = defineCommand({
  type: 'ingestion.usage.list',
  version: 1,
  topic: 'ingestionCommands',
  payload: ListUsageV1,
  result: UsagePageV1,
});

/** D-47: one row of a workspace's price list, USD per million tokens. */
export class ModelPriceV1 {
  @Matches(SLUG_PATTERN) provider!: string;
  @Matches(MODEL_PATTERN_PATTERN) @MaxCodePoints(MAX_MODEL_LENGTH) modelPattern!: string;
  @IsDateTime() effectiveFrom!: string;
  @Matches(PRICE_PATTERN) input!: string;
  @Matches(PRICE_PATTERN) output!: string;
  @IsOptional() @Matches(PRICE_PATTERN) cacheReadInput?: string | null;
  @IsOptional() @Matches(PRICE_PATTERN) cacheCreationInput?: string | null;
  @IsOptional() @Matches(PRICE_PATTERN) reasoningOutput?: string | null;
}
export class ModelPriceListV1 {
  @IsArray() @ArrayMaxSize(MAX_PRICES) @ValidateNested({ each: true }) @Type(() => ModelPriceV1) prices!: ModelPriceV1[];
}

export class GetModelPricesV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
}
export const GetModelPrices = defineCommand({
  type: 'ingestion.prices.get',
  version: 1,
  topic: 'ingestionCommands',
  payload: GetModelPricesV1,
  result: ModelPriceListV1,
});

/** D-47: replaces the workspace's whole list (owners and admins, checked by the gateway). */
export class PutModelPricesV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsArray() @ArrayMaxSize(MAX_PRICES) @ValidateNested({ each: true }) @Type(() => ModelPriceV1) prices!: ModelPriceV1[];
}
export const PutModelPrices = defineCommand({
  type: 'ingestion.prices.put',
  version: 1,
  topic: 'ingestionCommands',
  payload: PutModelPricesV1,
  result: ModelPriceListV1,
});
