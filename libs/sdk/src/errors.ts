import { ERROR_CODES, type ErrorCode } from './generated/error-codes';

export { ERROR_CODES, type ErrorCode };

/** D-1: one entry of `error.details` (validation failures name every bad field). */
export interface ErrorDetail {
  path: string;
  issue: string;
}

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);

/**
 * An error answer of the API (`{ error: { code, message, details? } }`, D-1),
 * or no answer at all. Branch on `code` (D-2), never on `message`.
 * `status` is the HTTP status, or 0 when no answer arrived (network failure:
 * `code` is then `UNAVAILABLE` and `cause` holds the network error).
 */
export class WorktrackError extends Error {
  override readonly name = 'WorktrackError';

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** D-4: the request id of the (last) attempt, for support and logs. */
    readonly requestId: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Builds the error from an API answer; a body that is not the D-1 envelope keeps its status and a code that fits it. */
  static fromResponse(status: number, body: unknown, requestId: string | null): WorktrackError {
    const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
    const code = isErrorCode(error?.code) ? error.code : codeForStatus(status);
    const message = typeof error?.message === 'string' ? error.message : `HTTP ${status} without an error body`;
    const details = Array.isArray(error?.details) ? (error.details as ErrorDetail[]) : [];
    return new WorktrackError(status, code, message, details, requestId);
  }

  /** What a client, a CLI or a tool result shows: the code, then the message. */
  override toString(): string {
    return `${this.code}: ${this.message}`;
  }
}

/** Only for answers that are not the D-1 envelope (a proxy's page, say): the D-2 code of that status. */
function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'VALIDATION_FAILED';
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 429:
      return 'RATE_LIMITED';
    case 502:
    case 503:
    case 504:
      return 'UNAVAILABLE';
    default:
      return 'INTERNAL';
  }
}
