import { API_TOKEN_ANYWHERE } from '../identity/api-token-format';

/**
 * The ActivityEvent rules of the spec and D-18/D-19, as plain functions the
 * gateway (edge validation) and the ingestion service (contract validation)
 * share.
 */
export const SLUG_PATTERN = /^[a-z0-9_.-]{1,64}$/;
export const MAX_EVENTS_PER_BATCH = 100;
export const MAX_EXTERNAL_ID_LENGTH = 256;
/** D-18: the byte length of the payload's UTF-8 JSON serialisation. */
export const MAX_PAYLOAD_BYTES = 32_768;
/** D-19: how far in the future `occurred_at` may be. */
export const MAX_FUTURE_SKEW_MS = 10 * 60_000;

export const payloadBytes = (payload: unknown): number => Buffer.byteLength(JSON.stringify(payload ?? {}), 'utf8');

/**
 * D-18: obvious secrets — one of our own tokens, a private key block, or a
 * well-known provider token prefix. Matched anywhere inside string values.
 */
const SECRET_PATTERNS: Array<{ name: string; pattern: RegExp }> = [
  { name: 'a worktrack API token', pattern: API_TOKEN_ANYWHERE },
  { name: 'a private key block', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----/ },
  { name: 'a GitHub token', pattern: /\b(?:ghp_|gho_|github_pat_)[0-9A-Za-z_]{10,}/ },
  { name: 'a Slack token', pattern: /\bxox[bp]-[0-9A-Za-z-]{10,}/ },
  { name: 'an AWS access key id', pattern: /\bAKIA[0-9A-Z]{16}\b/ },
  { name: 'a Stripe live secret key', pattern: /\bsk_live_[0-9A-Za-z]{10,}/ },
];

export interface SecretFinding {
  /** JSON path inside the payload, e.g. `payload.env.TOKEN` or `payload.args[2]`. */
  path: string;
  kind: string;
}

const looksSecret = (text: string): boolean => SECRET_PATTERNS.some((s) => s.pattern.test(text));

/** Whether any key or string value inside `value` looks like a secret: the walk without paths, for the common case of none. */
function holdsSecret(value: unknown): boolean {
  if (typeof value === 'string') return looksSecret(value);
  if (Array.isArray(value)) return value.some(holdsSecret);
  if (value === null || typeof value !== 'object') return false;
  for (const key of Object.keys(value)) if (looksSecret(key) || holdsSecret((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** Walks the payload (keys and values) and names every string that looks like a secret. */
export function findSecrets(payload: unknown, base = 'payload'): SecretFinding[] {
  // Paths are built only for a payload that holds one.
  if (!holdsSecret(payload)) return [];
  const findings: SecretFinding[] = [];
  const visit = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      const hit = SECRET_PATTERNS.find((s) => s.pattern.test(value));
      if (hit) findings.push({ path, kind: hit.name });
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => visit(v, `${path}[${i}]`));
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        const hit = SECRET_PATTERNS.find((s) => s.pattern.test(k));
        if (hit) findings.push({ path: `${path}.${k}`, kind: hit.name });
        visit(v, /^[A-Za-z_$][\w$]*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`);
      }
    }
  };
  visit(payload, base);
  return findings;
}

export interface RuleViolation {
  /** Index of the event in its batch. */
  index: number;
  /** `payload` or `occurred_at`. */
  field: 'payload' | 'occurred_at';
  issue: string;
}

/**
 * D-18 (payload size in bytes) and D-19 (`occurred_at` at most 10 minutes
 * ahead of receipt) for a batch, as the gateway checks POST /activity/events
 * and the connectors check what they map: the same rules on every path.
 */
export function activityEventRuleViolations(events: Array<{ payload?: unknown; occurredAt?: unknown }>, receivedAt: Date): RuleViolation[] {
  const violations: RuleViolation[] = [];
  events.forEach((e, index) => {
    if (typeof e !== 'object' || e === null) return;
    if (e.payload !== undefined && typeof e.payload === 'object' && e.payload !== null) {
      const bytes = payloadBytes(e.payload);
      if (bytes > MAX_PAYLOAD_BYTES)
        violations.push({ index, field: 'payload', issue: `payload is ${bytes} bytes as UTF-8 JSON; at most ${MAX_PAYLOAD_BYTES}` });
    }
    if (typeof e.occurredAt === 'string') {
      const at = Date.parse(e.occurredAt);
      if (Number.isNaN(at)) violations.push({ index, field: 'occurred_at', issue: 'occurred_at is not a valid date-time' });
      else if (at > receivedAt.getTime() + MAX_FUTURE_SKEW_MS) {
        violations.push({ index, field: 'occurred_at', issue: 'occurred_at is more than 10 minutes in the future' });
      }
    }
  });
  return violations;
}
