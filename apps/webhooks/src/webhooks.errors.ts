import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-53: plain members get 403 on every webhook route. */
export const ownersAndAdminsOnly = (): DomainError =>
  new DomainError(ErrorCode.FORBIDDEN, 'Webhook endpoints are managed by owners and admins.');

/** D-7, D-53: a foreign endpoint and a missing one look the same. */
export const endpointNotFound = (): DomainError => new DomainError(ErrorCode.NOT_FOUND, 'No such webhook endpoint.');

export const messageNotFound = (): DomainError => new DomainError(ErrorCode.NOT_FOUND, 'No such webhook message.');

export const invalidInput = (details: Array<{ path: string; issue: string }>): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', details);
