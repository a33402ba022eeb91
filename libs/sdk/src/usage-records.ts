import type { components } from './generated/openapi';

/** One usage record to report (D-45): what a model or tool call consumed. */
export type UsageRecord = Omit<components['schemas']['UsageRecordDto'], 'attributes'> & { attributes?: Record<string, unknown> | null };

/** What every helper lets the caller add: the session, when, the billed cost, and metadata (never prompt text). */
export interface UsageExtras {
  session_id?: string;
  cost?: UsageRecord['cost'];
  occurred_at?: string;
  duration_ms?: number;
  conversation_id?: string;
  attributes?: Record<string, unknown>;
}

/** The parts of an Anthropic Messages API response the record needs. */
export interface AnthropicMessageLike {
  id: string;
  model: string;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_creation_input_tokens?: number | null;
    cache_read_input_tokens?: number | null;
  };
}

/**
 * An Anthropic message as a usage record: `external_id` is the message id,
 * so a retried report is stored once (D-46). Anthropic counts cache reads
 * and writes apart from `input_tokens`; the record adds them in, as the
 * OpenTelemetry GenAI conventions (and D-45) count input.
 */
export function usageFromAnthropicMessage(message: AnthropicMessageLike, extras: UsageExtras = {}): UsageRecord {
  const cacheRead = message.usage.cache_read_input_tokens ?? 0;
  const cacheCreation = message.usage.cache_creation_input_tokens ?? 0;
  return {
    external_id: message.id,
    provider: 'anthropic',
    model: message.model,
    operation: 'chat',
    input_tokens: message.usage.input_tokens + cacheRead + cacheCreation,
    output_tokens: message.usage.output_tokens,
    ...(cacheRead > 0 ? { cache_read_input_tokens: cacheRead } : {}),
    ...(cacheCreation > 0 ? { cache_creation_input_tokens: cacheCreation } : {}),
    ...extras,
  };
}

/** The parts of an OpenAI Responses API response, or of a Chat Completions one, the record needs. */
export interface OpenAIResponseLike {
  id: string;
  model: string;
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    input_tokens_details?: { cached_tokens?: number | null } | null;
    output_tokens_details?: { reasoning_tokens?: number | null } | null;
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number | null } | null;
    completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  } | null;
}

/**
 * An OpenAI response (Responses or Chat Completions) as a usage record:
 * `external_id` is the response id. OpenAI already counts cached tokens in
 * the input and reasoning tokens in the output, as D-45 does.
 */
export function usageFromOpenAIResponse(response: OpenAIResponseLike, extras: UsageExtras = {}): UsageRecord {
  const u = response.usage ?? {};
  const cached = u.input_tokens_details?.cached_tokens ?? u.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoning = u.output_tokens_details?.reasoning_tokens ?? u.completion_tokens_details?.reasoning_tokens ?? 0;
  return {
    external_id: response.id,
    provider: 'openai',
    model: response.model,
    operation: 'chat',
    input_tokens: u.input_tokens ?? u.prompt_tokens ?? 0,
    output_tokens: u.output_tokens ?? u.completion_tokens ?? 0,
    ...(cached > 0 ? { cache_read_input_tokens: cached } : {}),
    ...(reasoning > 0 ? { reasoning_output_tokens: reasoning } : {}),
    ...extras,
  };
}
