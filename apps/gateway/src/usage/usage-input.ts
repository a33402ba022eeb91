import {
  checkPlain,
  DEFAULT_USAGE_OPERATION,
  ErrorCode,
  findSecrets,
  flattenValidationErrors,
  usageRuleViolations,
  type ErrorDetail,
  type UsageInputV1,
} from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';
import { given } from '../http/given';
import { UsageBatchDto, UsageRecordDto } from './usage.dto';

const invalid = (details: ErrorDetail[]): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid; nothing was stored.', details);

/**
 * POST /usage takes one record or `{ usage: [...] }`. The whole request is
 * checked before anything is sent (D-45 as D-17: all-or-nothing, `details`
 * names every bad index): field rules (integers in range, a cost as a
 * decimal string of at most 9 decimals), the rules across fields (cache
 * within input, reasoning within output, a model unless `execute_tool`, a
 * count or a cost), `occurred_at` at most 10 minutes ahead (D-19),
 * `attributes` at most 8 KB without content keys; then secrets in
 * `attributes` (D-18, PAYLOAD_CONTAINS_SECRET). Defaults: `operation` =
 * chat, `occurred_at` = time of receipt, `attributes` = {}.
 */
export function parseUsageInput(body: unknown, receivedAt: Date): UsageInputV1[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The body must be a usage record or { usage: [...] }.');
  }
  const batch = 'usage' in body;
  const prefix = (i: number): string => (batch ? `usage[${i}]` : '');
  const join = (base: string, path: string): string => (base === '' ? path : `${base}.${path}`);
  // The compiled check on the parsed body itself; only a refused body is hydrated for class-validator's details.
  const checked = batch ? checkPlain(UsageBatchDto, body) : checkPlain(UsageRecordDto, body);
  const details: ErrorDetail[] = flattenValidationErrors(checked.errors);
  const records: UsageRecordDto[] = batch ? ((checked.value as UsageBatchDto).usage ?? []) : [checked.value as UsageRecordDto];
  if (!Array.isArray(records)) throw invalid(details);
  const ruleInput = records.map((r) =>
    typeof r === 'object' && r !== null
      ? {
          model: r.model,
          operation: r.operation,
          occurredAt: r.occurred_at,
          cost: r.cost,
          attributes: r.attributes,
          inputTokens: r.input_tokens,
          outputTokens: r.output_tokens,
          cacheReadInputTokens: r.cache_read_input_tokens,
          cacheCreationInputTokens: r.cache_creation_input_tokens,
          reasoningOutputTokens: r.reasoning_output_tokens,
        }
      : {},
  );
  for (const v of usageRuleViolations(ruleInput, receivedAt)) details.push({ path: join(prefix(v.index), v.field), issue: v.issue });
  if (details.length > 0) throw invalid(dedupe(details));
  const secrets = records.flatMap((r, i) => findSecrets(r.attributes ?? {}, join(prefix(i), 'attributes')));
  if (secrets.length > 0) {
    throw new DomainError(
      ErrorCode.PAYLOAD_CONTAINS_SECRET,
      'Attributes hold what looks like a secret; nothing was stored.',
      secrets.map((s) => ({ path: s.path, issue: `looks like ${s.kind}` })),
    );
  }
  const now = receivedAt.toISOString();
  return records.map((r) => toUsageInput(r, now));
}

/** A checked record as the command carries it: defaults applied, absent and null fields left out. */
function toUsageInput(r: UsageRecordDto, now: string): UsageInputV1 {
  // Assigned field by field (the contract's order), not spread from one small object per field.
  const u: UsageInputV1 = { externalId: r.external_id, provider: r.provider } as UsageInputV1;
  if (given(r.model)) u.model = r.model;
  u.operation = r.operation ?? DEFAULT_USAGE_OPERATION;
  u.occurredAt = r.occurred_at ?? now;
  if (given(r.duration_ms)) u.durationMs = r.duration_ms;
  if (given(r.input_tokens)) u.inputTokens = r.input_tokens;
  if (given(r.output_tokens)) u.outputTokens = r.output_tokens;
  if (given(r.cache_read_input_tokens)) u.cacheReadInputTokens = r.cache_read_input_tokens;
  if (given(r.cache_creation_input_tokens)) u.cacheCreationInputTokens = r.cache_creation_input_tokens;
  if (given(r.reasoning_output_tokens)) u.reasoningOutputTokens = r.reasoning_output_tokens;
  if (given(r.cost)) u.cost = { amount: r.cost.amount, currency: r.cost.currency };
  if (given(r.session_id)) u.sessionId = r.session_id.toLowerCase();
  if (given(r.conversation_id)) u.conversationId = r.conversation_id;
  if (given(r.tool_name)) u.toolName = r.tool_name;
  u.attributes = r.attributes ?? {};
  return u;
}

/** D-45: every record naming a session that is not one of the caller's own. */
export function foreignSessionDetails(records: UsageInputV1[], owned: ReadonlySet<string>, batch: boolean): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  records.forEach((r, i) => {
    if (r.sessionId !== undefined && !owned.has(r.sessionId)) {
      details.push({ path: batch ? `usage[${i}].session_id` : 'session_id', issue: 'session_id is not one of your sessions' });
    }
  });
  return details;
}

function dedupe(details: ErrorDetail[]): ErrorDetail[] {
  const seen = new Set<string>();
  return details.filter((d) => {
    const key = `${d.path}|${d.issue}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
