import { ErrorCode, type ErrorDetail } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

export const notAnActivityBody = (): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'The body must be an ActivityEvent or { events: [...] }.');

export const invalidActivity = (details: ErrorDetail[]): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', details);

/** D-17: all-or-nothing, every bad index named. */
export const invalidBatch = (details: ErrorDetail[]): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid; nothing was stored.', details);

/** D-18. */
export const payloadContainsSecret = (details: ErrorDetail[]): DomainError =>
  new DomainError(ErrorCode.PAYLOAD_CONTAINS_SECRET, 'A payload holds what looks like a secret; nothing was stored.', details);
