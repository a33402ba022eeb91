/**
 * D-2: the stable error codes a client can see. Services raise domain errors
 * with these codes; the code crosses the Kafka boundary as a string and the
 * gateway maps it to an HTTP status in exactly one place.
 */
export const ErrorCode = {
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  INVALID_JSON: 'INVALID_JSON',
  PROTOTYPE_POISONING: 'PROTOTYPE_POISONING',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  SESSION_NOT_FOUND: 'SESSION_NOT_FOUND',
  SESSION_STATE_CONFLICT: 'SESSION_STATE_CONFLICT',
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
  INVALID_CURSOR: 'INVALID_CURSOR',
  ASSIGNEE_NOT_FOUND: 'ASSIGNEE_NOT_FOUND',
  PLATE_DATE_IN_PAST: 'PLATE_DATE_IN_PAST',
  PAYLOAD_CONTAINS_SECRET: 'PAYLOAD_CONTAINS_SECRET',
  RATE_LIMITED: 'RATE_LIMITED',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  INTERNAL: 'INTERNAL',
  UNAVAILABLE: 'UNAVAILABLE',
  INVALID_CREDENTIALS: 'INVALID_CREDENTIALS',
  SECOND_FACTOR_REQUIRED: 'SECOND_FACTOR_REQUIRED',
  TWO_FACTOR_REQUIRED: 'TWO_FACTOR_REQUIRED',
  MEMBER_EXISTS: 'MEMBER_EXISTS',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && Object.prototype.hasOwnProperty.call(ErrorCode, value);

/** D-2: the one mapping from error code to HTTP status (the gateway answers by it); a `Record` over every code, so exhaustive by type. */
const HTTP_STATUS: Record<ErrorCode, number> = {
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  PROTOTYPE_POISONING: 400,
  INVALID_CURSOR: 400,
  ASSIGNEE_NOT_FOUND: 400,
  PLATE_DATE_IN_PAST: 400,
  PAYLOAD_CONTAINS_SECRET: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  SESSION_STATE_CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  INVALID_CREDENTIALS: 401,
  SECOND_FACTOR_REQUIRED: 401,
  TWO_FACTOR_REQUIRED: 403,
  MEMBER_EXISTS: 409,
};

export const httpStatusOf = (code: ErrorCode): number => HTTP_STATUS[code];

/** D-1: one entry of `error.details` for validation failures. */
export interface ErrorDetail {
  path: string;
  issue: string;
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
}
