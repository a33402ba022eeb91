import {
  activityEventRuleViolations,
  checkPlain,
  findSecrets,
  flattenValidationErrors,
  type ActivityEventInputV1,
  type ErrorDetail,
} from '@worktrack/contracts';
import { given } from '../http/given';
import { ActivityBatchDto, ActivityEventDto, DEFAULT_SOURCE_TYPE } from './activity.dto';
import { invalidActivity, invalidBatch, notAnActivityBody, payloadContainsSecret } from './activity.errors';

/**
 * POST /activity/events takes one ActivityEvent or `{ events: [...] }`. The
 * whole request is checked before anything is sent (D-17: all-or-nothing,
 * `details` names every bad index): field rules, payload size in bytes
 * (D-18), `occurred_at` at most 10 minutes ahead (D-19); then secrets in
 * payloads (D-18, PAYLOAD_CONTAINS_SECRET). Defaults: `source_type` = custom,
 * `occurred_at` = time of receipt.
 */
export function parseActivityInput(body: unknown, receivedAt: Date): ActivityEventInputV1[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw notAnActivityBody();
  const batch = 'events' in body;
  const prefix = (i: number): string => (batch ? `events[${i}]` : '');
  const join = (base: string, path: string): string => (base === '' ? path : `${base}.${path}`);
  // The compiled check on the parsed body itself; only a refused body is hydrated for class-validator's details.
  const checked = batch ? checkPlain(ActivityBatchDto, body) : checkPlain(ActivityEventDto, body);
  const details: ErrorDetail[] = flattenValidationErrors(checked.errors);
  const events: ActivityEventDto[] = batch ? ((checked.value as ActivityBatchDto).events ?? []) : [checked.value as ActivityEventDto];
  if (!Array.isArray(events)) throw invalidActivity(details);

  const eventObjects = events.map((e) => (typeof e === 'object' && e !== null ? { payload: e.payload, occurredAt: e.occurred_at } : {}));
  for (const v of activityEventRuleViolations(eventObjects, receivedAt))
    details.push({ path: join(prefix(v.index), v.field), issue: v.issue });
  if (details.length > 0) throw invalidBatch(dedupe(details));

  const secrets = events.flatMap((e, i) => findSecrets(e.payload ?? {}, join(prefix(i), 'payload')));
  if (secrets.length > 0) throw payloadContainsSecret(secrets.map((s) => ({ path: s.path, issue: `looks like ${s.kind}` })));
  const now = receivedAt.toISOString();
  return events.map((e) => ({
    sourceType: e.source_type ?? DEFAULT_SOURCE_TYPE,
    eventType: e.event_type,
    occurredAt: e.occurred_at ?? now,
    payload: e.payload ?? {},
    ...(given(e.external_id) ? { externalId: e.external_id } : {}),
  }));
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
