import { ErrorCode, type ErrorDetail } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-7: another member's or workspace's connector and a missing one look the same. */
export const connectorNotFound = (connectorId: string): DomainError => new DomainError(ErrorCode.NOT_FOUND, `No connector ${connectorId}.`);

/** D-36: the settings a connector's kind needs, or does not use. */
export const invalidSettings = (details: ErrorDetail[]): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', details);
