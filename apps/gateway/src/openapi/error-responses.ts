import type { HeaderObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { ErrorCode } from '@worktrack/contracts';
import { httpStatusOf } from '../http/error-response';
import { SCHEMA_PREFIX } from './validation-schemas';

/** D-2: what each code means to a client. Exhaustive by type, like `httpStatusOf`. */
export const ERROR_MEANINGS: Record<ErrorCode, string> = {
  VALIDATION_FAILED: 'The request breaks a documented rule; `details` names every bad field.',
  INVALID_JSON: 'The body is not valid JSON (or is empty while Content-Type says JSON).',
  PROTOTYPE_POISONING:
    'The body, query or path holds a key that could alter object prototypes (`__proto__`, or `constructor` holding `prototype`); `details` names where.',
  PAYLOAD_TOO_LARGE: 'The request body, or its headers, are larger than the gateway accepts.',
  UNAUTHENTICATED: 'The bearer credential is missing, malformed, unknown, revoked or expired.',
  FORBIDDEN: 'The credential may not do this: a `report_only` token, or a role or member kind that is not allowed.',
  NOT_FOUND: 'No such resource for this member (an unknown route, or an id of another member or workspace).',
  SESSION_NOT_FOUND: 'The session does not exist for this member.',
  SESSION_STATE_CONFLICT: 'The session is not in a state that allows this; the message names its current state.',
  IDEMPOTENCY_KEY_REUSED: 'The idempotency key was used before with a different body.',
  INVALID_CURSOR: 'The cursor is not one this API issued for the same filters.',
  ASSIGNEE_NOT_FOUND: "The assignee is not a member of the caller's workspace.",
  PLATE_DATE_IN_PAST: "The plate date is before the assignee's today.",
  PAYLOAD_CONTAINS_SECRET: 'An event payload holds something that looks like a secret; `details` names where.',
  RATE_LIMITED: 'Too many requests in the rolling minute; retry after `Retry-After` seconds.',
  UNSUPPORTED_MEDIA_TYPE:
    'A request with a body must use Content-Type application/json, without a Content-Encoding (other than `identity`).',
  INTERNAL: 'An unexpected error; the message names the request id to report.',
  UNAVAILABLE: 'A dependency did not answer in time; safe to retry. `details` may name it.',
  INVALID_CREDENTIALS:
    'The email and password (or the invite, or the refresh cookie) do not sign anyone in; the same answer whatever was wrong.',
  SECOND_FACTOR_REQUIRED: 'The member has two-factor on: send `totp_code` or `recovery_code` with the password.',
  TWO_FACTOR_REQUIRED: 'The workspace requires two-factor of this member: until they enrol, their browser sessions may only enrol.',
  MEMBER_EXISTS: 'The email already belongs to an active member of the workspace.',
};

const STATUS_SUMMARIES: Record<number, string> = {
  400: 'Invalid request.',
  401: 'Missing or invalid credential.',
  403: 'Not allowed for this credential.',
  404: 'Not found.',
  409: 'Conflict with the current state.',
  413: 'Request body too large.',
  415: 'Unsupported media type.',
  429: 'Rate limit exceeded.',
  500: 'Internal error.',
  503: 'A dependency is unavailable.',
};

/** D-2 codes and D-1 `details` entries, shared by every error response. */
export const ERROR_SCHEMAS: Record<string, SchemaObject> = {
  ErrorCode: {
    type: 'string',
    enum: Object.values(ErrorCode),
    description: 'Stable and machine-readable; clients branch on it, never on `message`.',
  },
  ErrorDetail: {
    type: 'object',
    required: ['path', 'issue'],
    additionalProperties: false,
    properties: {
      path: { type: 'string', description: 'The offending field, e.g. `events[3].event_type`.' },
      issue: { type: 'string', description: 'What is wrong with it.' },
    },
  },
};

/** D-1: `{ error: { code, message, details? } }`, `code` being one of `codes`. */
const envelope = (codes: ErrorCode[]): SchemaObject => ({
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: {
        code: { allOf: [{ $ref: `${SCHEMA_PREFIX}ErrorCode` }], enum: codes },
        message: { type: 'string', description: 'For humans; may change.' },
        details: {
          type: 'array',
          items: { $ref: `${SCHEMA_PREFIX}ErrorDetail` },
          description: 'Validation failures, one per offending field.',
        },
      },
    },
  },
});

/**
 * One response per HTTP status the codes map to: the envelope with those
 * codes, an example per code, and the given headers.
 */
export function errorResponses(
  codes: Iterable<ErrorCode>,
  headersFor: (status: number) => Record<string, HeaderObject>,
): Record<string, ResponseObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = httpStatusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const statuses = [...byStatus.keys()].sort((a, b) => a - b);
  return Object.fromEntries(
    statuses.map((status) => {
      const group = byStatus.get(status) ?? [];
      const response: ResponseObject = {
        description: [STATUS_SUMMARIES[status] ?? 'Error.', ...group.map((code) => `- \`${code}\`: ${ERROR_MEANINGS[code]}`)].join('\n'),
        headers: headersFor(status),
        content: {
          'application/json': {
            schema: envelope(group),
            examples: Object.fromEntries(
              group.map((code) => [code, { summary: code, value: { error: { code, message: ERROR_MEANINGS[code] } } }]),
            ),
          },
        },
      };
      return [String(status), response];
    }),
  );
}
