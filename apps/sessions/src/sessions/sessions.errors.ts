import { ErrorCode, type ErrorDetail, type SessionState } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-27: a missing id and another member's id look the same. */
export const sessionNotFound = (sessionId: string): DomainError =>
  new DomainError(ErrorCode.SESSION_NOT_FOUND, `Session ${sessionId} does not exist.`);

/** D-27: the message names the current state. */
export const sessionStateConflict = (state: SessionState, action: 'pause' | 'resume'): DomainError =>
  new DomainError(
    ErrorCode.SESSION_STATE_CONFLICT,
    action === 'pause'
      ? `The session is ${state}; only an active session can be paused.`
      : `The session is ${state}; only a paused session can be resumed.`,
  );

/** D-28. */
export const idempotencyKeyReused = (): DomainError =>
  new DomainError(ErrorCode.IDEMPOTENCY_KEY_REUSED, 'This idempotency_key was used before with a different request body.');

export const sessionValidationFailed = (details: ErrorDetail[]): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', details);

/** D-29: the member projection has not caught up with identity yet. */
export const profileNotProjectedYet = (): DomainError =>
  new DomainError(ErrorCode.UNAVAILABLE, 'Your profile has not reached the sessions service yet; retry shortly.');

/** A cursor that verified but does not decode to a position (D-27 pages). */
export const malformedCursor = (): DomainError =>
  new DomainError(ErrorCode.INVALID_CURSOR, 'The cursor is not valid for this query (malformed).');
