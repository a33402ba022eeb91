import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { JSONSchema } from 'class-validator-jsonschema';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import {
  COST_PATTERN,
  COST_SOURCES,
  DEFAULT_USAGE_OPERATION,
  IsDateTime,
  MAX_ATTRIBUTES_BYTES,
  MAX_CONVERSATION_ID_LENGTH,
  MAX_EXTERNAL_ID_LENGTH,
  MAX_MODEL_LENGTH,
  MAX_PRICES,
  MAX_TOOL_NAME_LENGTH,
  MAX_USAGE_DURATION_MS,
  MAX_USAGE_PER_BATCH,
  MAX_USAGE_TOKENS,
  MaxCodePoints,
  MODEL_PATTERN_PATTERN,
  PRICE_PATTERN,
  SLUG_PATTERN,
  USAGE_CURRENCIES,
  type ModelPrice,
  type StoredUsageV1,
} from '@worktrack/contracts';

const tokens = (what: string): Parameters<typeof JSONSchema>[0] => ({
  description: `${what} (an integer 0 .. 2,000,000,000).`,
  examples: [1200],
});

/** D-45: an exact amount of money. */
@JSONSchema({ title: 'Cost', description: 'An exact amount: a decimal string with at most 9 decimals, never a JSON number.' })
export class CostDto {
  @JSONSchema({ description: 'Decimal string, at most 9 decimals.', examples: ['0.004215'] })
  @IsString({ message: 'amount must be a decimal string (not a number)' })
  @Matches(COST_PATTERN, { message: 'amount must be a non-negative decimal string with at most 9 decimals' })
  amount!: string;

  @JSONSchema({ description: 'Always `USD`.', examples: ['USD'] })
  @IsIn(USAGE_CURRENCIES, { message: 'currency must be USD' })
  currency!: 'USD';
}

/**
 * One usage record (D-45): what a model call or a tool call consumed. Field
 * names and meaning follow the OpenTelemetry GenAI semantic conventions
 * (`gen_ai.usage.input_tokens` → `input_tokens`, …).
 */
@JSONSchema({ title: 'One usage record' })
export class UsageRecordDto {
  @JSONSchema({
    description: "The provider's response or message id: retries with the same `provider` and `external_id` are stored once, forever.",
    examples: ['msg_01XFDUDYJgAACzvnptvVoYEL'],
  })
  @IsString()
  @MinLength(1)
  @MaxCodePoints(MAX_EXTERNAL_ID_LENGTH)
  external_id!: string;

  @JSONSchema({ description: 'Provider slug (`gen_ai.provider.name`), e.g. `anthropic`, `openai`.', examples: ['anthropic'] })
  @Matches(SLUG_PATTERN, { message: 'provider must be 1 to 64 characters of a-z, 0-9, _ . -' })
  provider!: string;

  @JSONSchema({
    description: 'The model (`gen_ai.response.model`); required unless `operation` is `execute_tool`.',
    examples: ['claude-sonnet-4-5'],
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxCodePoints(MAX_MODEL_LENGTH)
  model?: string;

  @JSONSchema({
    description: 'The operation (`gen_ai.operation.name`), e.g. `chat`, `embeddings`, `execute_tool`.',
    default: DEFAULT_USAGE_OPERATION,
    examples: ['chat'],
  })
  @IsOptional()
  @Matches(SLUG_PATTERN, { message: 'operation must be 1 to 64 characters of a-z, 0-9, _ . -' })
  operation?: string;

  @JSONSchema({ description: 'When it happened (RFC 3339 with an offset), at most 10 minutes ahead. Default: the time of receipt.' })
  @IsOptional()
  @IsDateTime()
  occurred_at?: string;

  @JSONSchema({ description: 'How long the call took, in milliseconds (0 .. 86,400,000).', examples: [2300] })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_USAGE_DURATION_MS)
  duration_ms?: number;

  @JSONSchema(tokens('Input tokens (`gen_ai.usage.input_tokens`), cache reads and writes included'))
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_USAGE_TOKENS)
  input_tokens?: number;

  @JSONSchema(tokens('Output tokens (`gen_ai.usage.output_tokens`), reasoning included'))
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_USAGE_TOKENS)
  output_tokens?: number;

  @JSONSchema(tokens('Input tokens read from the provider cache (`gen_ai.usage.cache_read.input_tokens`), part of `input_tokens`'))
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_USAGE_TOKENS)
  cache_read_input_tokens?: number;

  @JSONSchema(tokens('Input tokens written to the provider cache (`gen_ai.usage.cache_creation.input_tokens`), part of `input_tokens`'))
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_USAGE_TOKENS)
  cache_creation_input_tokens?: number;

  @JSONSchema(tokens('Reasoning tokens (`gen_ai.usage.reasoning.output_tokens`), part of `output_tokens`'))
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_USAGE_TOKENS)
  reasoning_output_tokens?: number;

  @JSONSchema({ description: 'The cost as the provider billed it; without it the workspace price list computes one at receipt.' })
  @IsOptional()
  @ValidateNested()
  @Type(() => CostDto)
  cost?: CostDto;

  @JSONSchema({ description: "One of the caller's own sessions: the record is linked to it, whatever its time would link it to." })
  @IsOptional()
  @IsUUID()
  session_id?: string;

  @JSONSchema({ description: 'The conversation (`gen_ai.conversation.id`).', examples: ['conv_5f2a'] })
  @IsOptional()
  @IsString()
  @MaxCodePoints(MAX_CONVERSATION_ID_LENGTH)
  conversation_id?: string;

  @JSONSchema({ description: 'The tool called (`gen_ai.tool.name`).', examples: ['web_search'] })
  @IsOptional()
  @IsString()
  @MaxCodePoints(MAX_TOOL_NAME_LENGTH)
  tool_name?: string;

  @JSONSchema({
    description:
      `Metadata only, at most ${MAX_ATTRIBUTES_BYTES} bytes as UTF-8 JSON: no secrets, and none of the content keys ` +
      '`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`, `gen_ai.tool.call.arguments`, ' +
      '`gen_ai.tool.call.result`, `prompt`, `completion`, `messages` at any depth.',
    examples: [{ 'gen_ai.request.temperature': 0.2, agent: 'triage-bot' }],
  })
  @IsOptional()
  @IsObject({ message: 'attributes must be an object' })
  attributes?: Record<string, unknown>;
}

@JSONSchema({ title: 'A batch of usage records', description: 'At most 100 records, stored all or nothing.' })
export class UsageBatchDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_USAGE_PER_BATCH)
  @ValidateNested({ each: true })
  @Type(() => UsageRecordDto)
  usage!: UsageRecordDto[];
}

/** D-48 query. `from` is inclusive, `to` exclusive. */
export class UsageQueryDto {
  @IsOptional()
  @IsDateTime()
  from?: string;

  @IsOptional()
  @IsDateTime()
  to?: string;

  @IsOptional()
  @IsUUID()
  session_id?: string;

  @IsOptional()
  @Matches(SLUG_PATTERN)
  provider?: string;

  @IsOptional()
  @IsString()
  @MaxCodePoints(MAX_MODEL_LENGTH)
  model?: string;

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

export class CostBody {
  @ApiProperty({ example: '0.004215', description: 'Exact decimal string.' })
  amount!: string;

  @ApiProperty({ enum: USAGE_CURRENCIES })
  currency!: 'USD';
}

/** D-48: a stored usage record. */
export class StoredUsageBody {
  @ApiProperty({ format: 'uuid' }) usage_id!: string;
  @ApiProperty({ example: 'msg_01XFDUDYJgAACzvnptvVoYEL' }) external_id!: string;
  @ApiProperty({ pattern: SLUG_PATTERN.source, example: 'anthropic' }) provider!: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'claude-sonnet-4-5' }) model!: string | null;
  @ApiProperty({ example: 'chat' }) operation!: string;
  @ApiProperty({ format: 'date-time' }) occurred_at!: string;
  @ApiProperty({ format: 'date-time' }) received_at!: string;
  @ApiProperty({ type: 'integer', nullable: true }) duration_ms!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) input_tokens!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) output_tokens!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) cache_read_input_tokens!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) cache_creation_input_tokens!: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) reasoning_output_tokens!: number | null;
  @ApiProperty({ type: CostBody, nullable: true, description: 'Null when `cost_source` is `none`.' }) cost!: CostBody | null;
  @ApiProperty({
    enum: COST_SOURCES,
    description: '`reported` (sent with the record), `computed` (from the price list at receipt) or `none` (no price matched).',
  })
  cost_source!: string;
  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'The session named by the record, else the one correlation linked (null until linked or when none covers it).',
  })
  session_id!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'conv_5f2a' }) conversation_id!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: 'web_search' }) tool_name!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, example: { agent: 'triage-bot' } }) attributes!: Record<string, unknown>;
}

/** D-45: the answer to a usage report. */
export class UsageIngestedBody {
  @ApiProperty({ type: 'integer', minimum: 0 })
  accepted!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Records already stored under the same (provider, external_id).' })
  deduplicated!: number;

  @ApiProperty({
    type: 'array',
    items: { type: 'string', format: 'uuid' },
    description: 'One per submitted record, in order; a duplicate gets the first stored id.',
  })
  usage_ids!: string[];
}

export const presentUsage = (u: StoredUsageV1): StoredUsageBody => ({
  usage_id: u.usageId,
  external_id: u.externalId,
  provider: u.provider,
  model: u.model ?? null,
  operation: u.operation,
  occurred_at: u.occurredAt,
  received_at: u.receivedAt,
  duration_ms: u.durationMs ?? null,
  input_tokens: u.inputTokens ?? null,
  output_tokens: u.outputTokens ?? null,
  cache_read_input_tokens: u.cacheReadInputTokens ?? null,
  cache_creation_input_tokens: u.cacheCreationInputTokens ?? null,
  reasoning_output_tokens: u.reasoningOutputTokens ?? null,
  cost: u.cost ? { amount: u.cost.amount, currency: u.cost.currency } : null,
  cost_source: u.costSource,
  session_id: u.sessionId ?? null,
  conversation_id: u.conversationId ?? null,
  tool_name: u.toolName ?? null,
  attributes: u.attributes,
});

/** D-47: a row of the price list, USD per million tokens. */
@JSONSchema({ title: 'A model price' })
export class ModelPriceDto {
  @JSONSchema({ examples: ['anthropic'] })
  @Matches(SLUG_PATTERN, { message: 'provider must be 1 to 64 characters of a-z, 0-9, _ . -' })
  provider!: string;

  @JSONSchema({
    description: 'The whole model name, `*` a wildcard; the most specific match wins (fewest `*`, then longest).',
    examples: ['claude-sonnet-4*'],
  })
  @Matches(MODEL_PATTERN_PATTERN, { message: 'model_pattern must be 1 to 256 characters without spaces' })
  @MaxCodePoints(MAX_MODEL_LENGTH)
  model_pattern!: string;

  @JSONSchema({ description: 'From when the price applies (by the record’s occurred_at).' })
  @IsDateTime()
  effective_from!: string;

  @JSONSchema({ description: 'USD per million input tokens (decimal string, at most 12 decimals).', examples: ['3'] })
  @IsString()
  @Matches(PRICE_PATTERN, { message: 'input must be a decimal string with at most 12 decimals' })
  input!: string;

  @JSONSchema({ description: 'USD per million output tokens.', examples: ['15'] })
  @IsString()
  @Matches(PRICE_PATTERN, { message: 'output must be a decimal string with at most 12 decimals' })
  output!: string;

  @JSONSchema({ description: 'USD per million cache-read input tokens; default the input price.', examples: ['0.3'] })
  @IsOptional()
  @IsString()
  @Matches(PRICE_PATTERN, { message: 'cache_read_input must be a decimal string with at most 12 decimals' })
  cache_read_input?: string;

  @JSONSchema({ description: 'USD per million cache-write input tokens; default the input price.', examples: ['3.75'] })
  @IsOptional()
  @IsString()
  @Matches(PRICE_PATTERN, { message: 'cache_creation_input must be a decimal string with at most 12 decimals' })
  cache_creation_input?: string;

  @JSONSchema({ description: 'USD per million reasoning output tokens; default the output price.', examples: ['15'] })
  @IsOptional()
  @IsString()
  @Matches(PRICE_PATTERN, { message: 'reasoning_output must be a decimal string with at most 12 decimals' })
  reasoning_output?: string;
}

@JSONSchema({ title: 'A price list', description: 'Replaces the whole list.' })
export class ModelPricesDto {
  @IsArray()
  @ArrayMaxSize(MAX_PRICES)
  @ValidateNested({ each: true })
  @Type(() => ModelPriceDto)
  prices!: ModelPriceDto[];
}

export class ModelPriceBody {
  @ApiProperty({ example: 'anthropic' }) provider!: string;
  @ApiProperty({ example: 'claude-sonnet-4*' }) model_pattern!: string;
  @ApiProperty({ format: 'date-time' }) effective_from!: string;
  @ApiProperty({ example: '3' }) input!: string;
  @ApiProperty({ example: '15' }) output!: string;
  @ApiProperty({ type: 'string', nullable: true, example: '0.3' }) cache_read_input!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: '3.75' }) cache_creation_input!: string | null;
  @ApiProperty({ type: 'string', nullable: true, example: '15' }) reasoning_output!: string | null;
}

export class ModelPriceListBody {
  @ApiProperty({ type: [ModelPriceBody] }) prices!: ModelPriceBody[];
}

export const presentPrice = (p: ModelPrice): ModelPriceBody => ({
  provider: p.provider,
  model_pattern: p.modelPattern,
  effective_from: new Date(p.effectiveFrom).toISOString(),
  input: p.input,
  output: p.output,
  cache_read_input: p.cacheReadInput ?? null,
  cache_creation_input: p.cacheCreationInput ?? null,
  reasoning_output: p.reasoningOutput ?? null,
});
