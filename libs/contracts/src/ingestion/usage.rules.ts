import { MAX_FUTURE_SKEW_MS, payloadBytes } from './activity-event.rules';

/**
 * The usage record rules of D-45 … D-47 as plain functions the gateway (edge
 * validation) and the ingestion service (cost at receipt) share. Money is
 * exact: decimal strings parsed into scaled BigInts, never a float.
 */
export const MAX_USAGE_PER_BATCH = 100;
export const MAX_USAGE_TOKENS = 2_000_000_000;
export const MAX_USAGE_DURATION_MS = 86_400_000;
export const MAX_MODEL_LENGTH = 256;
export const MAX_CONVERSATION_ID_LENGTH = 256;
export const MAX_TOOL_NAME_LENGTH = 128;
/** D-45: attributes as UTF-8 JSON. */
export const MAX_ATTRIBUTES_BYTES = 8_192;
export const DEFAULT_USAGE_OPERATION = 'chat';
export const USAGE_CURRENCIES = ['USD'] as const;
export const COST_SOURCES = ['reported', 'computed', 'none'] as const;
export type CostSource = (typeof COST_SOURCES)[number];
/** D-47: costs are rounded (computed) or accepted (reported) with at most this many decimals. */
export const COST_SCALE = 9;
/** Prices per million tokens take at most this many decimals: with COST_SCALE, every product is exact before rounding. */
export const PRICE_SCALE = 12;
/** D-45: a non-negative decimal of at most 9 decimals, no leading zeros, no exponent. */
export const COST_PATTERN = /^(0|[1-9]\d{0,17})(\.\d{1,9})?$/;
export const PRICE_PATTERN = /^(0|[1-9]\d{0,11})(\.\d{1,12})?$/;
/** D-47: a model name with `*` wildcards. */
export const MODEL_PATTERN_PATTERN = /^[^\s]{1,256}$/;
export const MAX_PRICES = 1_000;

/** D-45: keys that carry prompt or completion content, refused at any depth of `attributes`. */
export const CONTENT_ATTRIBUTE_KEYS: ReadonlySet<string> = new Set([
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
  'prompt',
  'completion',
  'messages',
]);

/** The token counts of a record (D-45, the OpenTelemetry GenAI names without `gen_ai.usage.`). */
export interface UsageTokens {
  inputTokens?: number | null;
  outputTokens?: number | null;
  cacheReadInputTokens?: number | null;
  cacheCreationInputTokens?: number | null;
  reasoningOutputTokens?: number | null;
}

export interface UsageRuleInput extends UsageTokens {
  model?: unknown;
  operation?: unknown;
  occurredAt?: unknown;
  cost?: unknown;
  attributes?: unknown;
}

export interface UsageRuleViolation {
  index: number;
  /** The API field name (snake case), or a path inside `attributes`. */
  field: string;
  issue: string;
}

/** Whether a content key (D-45) is anywhere inside `value`: the walk without paths, for the common case of none. */
function holdsContentKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsContentKey);
  if (value === null || typeof value !== 'object') return false;
  for (const key of Object.keys(value)) {
    if (CONTENT_ATTRIBUTE_KEYS.has(key) || holdsContentKey((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/** Paths of content keys (D-45) inside `attributes`. */
export function findContentKeys(value: unknown, base = 'attributes'): string[] {
  // Paths are built only for attributes that hold one.
  if (!holdsContentKey(value)) return [];
  const found: string[] = [];
  const visit = (v: unknown, path: string): void => {
    if (Array.isArray(v)) v.forEach((x, i) => visit(x, `${path}[${i}]`));
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        const at = /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
        if (CONTENT_ATTRIBUTE_KEYS.has(k)) found.push(at);
        else visit(x, at);
      }
    }
  };
  visit(value, base);
  return found;
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n);

/**
 * The rules across fields (D-45, D-19): cache counts within `input_tokens`,
 * reasoning within `output_tokens`, a model unless the operation is
 * `execute_tool`, at least one token count or a cost, `occurred_at` at most
 * 10 minutes ahead, `attributes` at most 8 KB without content keys. Field
 * rules (types, ranges, patterns) are the DTO's.
 */
export function usageRuleViolations(records: UsageRuleInput[], receivedAt: Date): UsageRuleViolation[] {
  const out: UsageRuleViolation[] = [];
  records.forEach((r, index) => {
    if (typeof r !== 'object' || r === null) return;
    const cache =
      (isCount(r.cacheReadInputTokens) ? r.cacheReadInputTokens : 0) +
      (isCount(r.cacheCreationInputTokens) ? r.cacheCreationInputTokens : 0);
    if (cache > 0 && !(isCount(r.inputTokens) && cache <= r.inputTokens)) {
      out.push({
        index,
        field: 'input_tokens',
        issue: 'cache_read_input_tokens + cache_creation_input_tokens must not exceed input_tokens (cache counts are part of input)',
      });
    }
    if (
      isCount(r.reasoningOutputTokens) &&
      r.reasoningOutputTokens > 0 &&
      !(isCount(r.outputTokens) && r.reasoningOutputTokens <= r.outputTokens)
    ) {
      out.push({
        index,
        field: 'output_tokens',
        issue: 'reasoning_output_tokens must not exceed output_tokens (reasoning is part of output)',
      });
    }
    if ((r.operation ?? DEFAULT_USAGE_OPERATION) !== 'execute_tool' && (r.model === undefined || r.model === null)) {
      out.push({ index, field: 'model', issue: 'model is required unless operation is execute_tool' });
    }
    const counted = [r.inputTokens, r.outputTokens, r.cacheReadInputTokens, r.cacheCreationInputTokens, r.reasoningOutputTokens].some(
      (n) => n !== undefined && n !== null,
    );
    if (!counted && (r.cost === undefined || r.cost === null)) {
      out.push({ index, field: 'input_tokens', issue: 'a record needs at least one token count or a cost' });
    }
    if (typeof r.occurredAt === 'string') {
      const at = Date.parse(r.occurredAt);
      if (!Number.isNaN(at) && at > receivedAt.getTime() + MAX_FUTURE_SKEW_MS) {
        out.push({ index, field: 'occurred_at', issue: 'occurred_at is more than 10 minutes in the future' });
      }
    }
    if (r.attributes !== undefined && r.attributes !== null && typeof r.attributes === 'object') {
      const bytes = payloadBytes(r.attributes);
      if (bytes > MAX_ATTRIBUTES_BYTES) {
        out.push({ index, field: 'attributes', issue: `attributes is ${bytes} bytes as UTF-8 JSON; at most ${MAX_ATTRIBUTES_BYTES}` });
      }
      for (const path of findContentKeys(r.attributes)) {
        out.push({ index, field: path, issue: 'attributes hold metadata only: prompt, completion and tool-call content keys are refused' });
      }
    }
  });
  return out;
}

/** A non-negative decimal string (already checked against its pattern) as an integer of `scale` decimals. */
export function toScaled(decimal: string, scale: number): bigint {
  const [whole, fraction = ''] = decimal.split('.');
  if (fraction.length > scale) throw new RangeError(`${decimal} has more than ${scale} decimals`);
  return BigInt(whole + fraction.padEnd(scale, '0'));
}

/** A non-negative scaled integer as a decimal string with exactly `scale` decimals. */
export function fromScaled(value: bigint, scale: number): string {
  const digits = value.toString().padStart(scale + 1, '0');
  return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** D-47: a price list row, prices in USD per million tokens. */
export interface ModelPrice {
  provider: string;
  modelPattern: string;
  effectiveFrom: string;
  input: string;
  output: string;
  cacheReadInput?: string | null;
  cacheCreationInput?: string | null;
  reasoningOutput?: string | null;
}

/** D-47: `*` matches any run of characters (none included); the pattern covers the whole name. */
export function modelMatches(pattern: string, model: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === model;
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (!model.startsWith(first) || model.length < first.length + last.length || !model.endsWith(last)) return false;
  let at = first.length;
  const end = model.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = model.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

const wildcards = (pattern: string): number => pattern.split('*').length - 1;

/**
 * D-47: the price in force for a record: among the provider's patterns that
 * match the whole model name, the most specific (fewest `*`, then longest,
 * then the smaller pattern text, so the choice never depends on order); of
 * its rows, the one with the latest `effective_from` not after `occurredAt`.
 * A more specific pattern not yet in force at `occurredAt` does not count.
 */
export function priceInForce(prices: ModelPrice[], provider: string, model: string, occurredAt: string): ModelPrice | undefined {
  const at = Date.parse(occurredAt);
  let best: ModelPrice | undefined;
  let bestFrom = -Infinity;
  for (const p of prices) {
    if (p.provider !== provider || !modelMatches(p.modelPattern, model)) continue;
    const from = Date.parse(p.effectiveFrom);
    if (from > at) continue;
    if (best === undefined) {
      best = p;
      bestFrom = from;
      continue;
    }
    const order =
      wildcards(p.modelPattern) - wildcards(best.modelPattern) ||
      best.modelPattern.length - p.modelPattern.length ||
      (p.modelPattern < best.modelPattern ? -1 : p.modelPattern > best.modelPattern ? 1 : 0);
    if (order < 0 || (order === 0 && from > bestFrom)) {
      best = p;
      bestFrom = from;
    }
  }
  return best;
}

/**
 * D-47: the cost of a record's tokens at a price, rounded half-up to 9
 * decimals. Cache counts are part of input and reasoning part of output, so
 * each token is priced once: cache tokens at their own price or else the
 * input price, reasoning at its own or else the output price. Exact: the sum
 * of tokens × price (PRICE_SCALE decimals) per million is an integer of
 * PRICE_SCALE + 6 decimals, rounded once.
 */
export function computeCost(tokens: UsageTokens, price: ModelPrice): string {
  const n = (v: number | null | undefined): bigint => BigInt(v ?? 0);
  const p = (v: string | null | undefined, fallback: string): bigint => toScaled(v ?? fallback, PRICE_SCALE);
  const cacheRead = n(tokens.cacheReadInputTokens);
  const cacheCreation = n(tokens.cacheCreationInputTokens);
  const reasoning = n(tokens.reasoningOutputTokens);
  const plainInput = n(tokens.inputTokens) - cacheRead - cacheCreation;
  const plainOutput = n(tokens.outputTokens) - reasoning;
  const sum =
    plainInput * p(price.input, price.input) +
    cacheRead * p(price.cacheReadInput, price.input) +
    cacheCreation * p(price.cacheCreationInput, price.input) +
    plainOutput * p(price.output, price.output) +
    reasoning * p(price.reasoningOutput, price.output);
  // sum has PRICE_SCALE decimals per million tokens: PRICE_SCALE + 6 decimals of USD.
  const drop = 10n ** BigInt(PRICE_SCALE + 6 - COST_SCALE);
  return fromScaled((sum + drop / 2n) / drop, COST_SCALE);
}
