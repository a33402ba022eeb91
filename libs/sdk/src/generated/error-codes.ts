// GENERATED FILE — DO NOT EDIT.
// The D-2 error codes, from libs/contracts/src/error-codes.ts.
// Regenerate with `npm run generate:sdk` (scripts/generate-sdk.ts); a unit test fails when it is stale.
/** D-2: every stable error code the API can answer with (`error.code`). */
export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'INVALID_JSON',
  'PROTOTYPE_POISONING',
  'PAYLOAD_TOO_LARGE',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'SESSION_NOT_FOUND',
  'SESSION_STATE_CONFLICT',
  'IDEMPOTENCY_KEY_REUSED',
  'INVALID_CURSOR',
  'ASSIGNEE_NOT_FOUND',
  'PLATE_DATE_IN_PAST',
  'PAYLOAD_CONTAINS_SECRET',
  'RATE_LIMITED',
  'UNSUPPORTED_MEDIA_TYPE',
  'INTERNAL',
  'UNAVAILABLE',
  'INVALID_CREDENTIALS',
  'SECOND_FACTOR_REQUIRED',
  'TWO_FACTOR_REQUIRED',
  'MEMBER_EXISTS',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
