import type { ErrorCode } from '@worktrack/sdk';

/** D-2 codes the sign-in decisions (D-37 … D-43) add to the served list. */
type LaterCode = 'HEADERS_TOO_LARGE' | 'INVALID_CREDENTIALS' | 'SECOND_FACTOR_REQUIRED' | 'TWO_FACTOR_REQUIRED' | 'MEMBER_EXISTS';
export type Code = ErrorCode | LaterCode;

/** One human sentence per D-2 code: the app never shows a stack, a status line or raw JSON. */
export const SENTENCES: Record<Code, string> = {
  VALIDATION_FAILED: 'Some of what you entered is not valid. Check the highlighted fields and try again.',
  INVALID_JSON: 'The app sent something the server could not read. Reload the page and try again.',
  PROTOTYPE_POISONING: 'The app sent something the server refused to read. Reload the page and try again.',
  PAYLOAD_TOO_LARGE: 'That is too much to send at once. Make it shorter and try again.',
  UNAUTHENTICATED: 'Your sign-in has ended. Sign in again to continue.',
  FORBIDDEN: 'You are not allowed to do that. Ask an owner or admin of your workspace.',
  NOT_FOUND: 'That no longer exists. It may have been removed.',
  SESSION_NOT_FOUND: 'That session no longer exists.',
  SESSION_STATE_CONFLICT: 'The session changed elsewhere in the meantime. The page now shows where it stands.',
  IDEMPOTENCY_KEY_REUSED: 'That request was already made with different details. Try again.',
  INVALID_CURSOR: 'The list changed while you were paging. Start again from the first page.',
  ASSIGNEE_NOT_FOUND: 'There is no such teammate in your workspace.',
  PLATE_DATE_IN_PAST: 'That day has passed for your teammate. Pick today or a later day.',
  PAYLOAD_CONTAINS_SECRET: 'That looks like it contains a secret such as a token or key. Remove it and try again.',
  RATE_LIMITED: 'Too many requests in a short time. Wait a moment and try again.',
  UNSUPPORTED_MEDIA_TYPE: 'The app sent a kind of content the server does not take. Reload the page and try again.',
  INTERNAL: 'Something went wrong on our side. Try again in a moment.',
  UNAVAILABLE: 'The service cannot be reached right now. Check your connection and try again.',
  HEADERS_TOO_LARGE: 'Your browser sent too much with the request. Sign out and in again.',
  INVALID_CREDENTIALS: 'That email and password do not match an account.',
  SECOND_FACTOR_REQUIRED: 'Enter the code from your authenticator app to finish signing in.',
  TWO_FACTOR_REQUIRED: 'Your workspace requires two-factor authentication. Turn it on in Settings, Security before you continue.',
  MEMBER_EXISTS: 'Someone with that email is already a member of this workspace.',
};

export interface Detail {
  path: string;
  issue: string;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: Code,
    message: string,
    readonly details: Detail[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Worth offering "Try again": no answer, a 503 or a 429. */
  get retryable(): boolean {
    return this.status === 0 || this.code === 'UNAVAILABLE' || this.code === 'RATE_LIMITED' || this.code === 'INTERNAL';
  }
}

const isCode = (value: unknown): value is Code => typeof value === 'string' && value in SENTENCES;

function codeForStatus(status: number): Code {
  if (status === 0 || status === 502 || status === 503 || status === 504) return 'UNAVAILABLE';
  if (status === 400) return 'VALIDATION_FAILED';
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'FORBIDDEN';
  if (status === 404) return 'NOT_FOUND';
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE';
  if (status === 429) return 'RATE_LIMITED';
  return 'INTERNAL';
}

/** An ApiError from an error answer (D-1 envelope, or anything else a proxy may send). */
export function parseError(status: number, body: unknown): ApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  const code = isCode(error?.code) ? error.code : codeForStatus(status);
  const message = typeof error?.message === 'string' ? error.message : `HTTP ${status}`;
  const details = Array.isArray(error?.details) ? (error.details as Detail[]) : [];
  return new ApiError(status, code, message, details);
}

/** The sentence to show for any failure: an ApiError's code, or "cannot be reached" for anything else. */
export function sentenceFor(error: unknown): string {
  if (error instanceof ApiError) {
    // 409 SESSION_STATE_CONFLICT names the current state in its message (D-2), which is safe and useful.
    return SENTENCES[error.code];
  }
  return SENTENCES.UNAVAILABLE;
}
