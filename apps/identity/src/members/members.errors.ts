import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-8: a credential whose member is gone or deactivated is no credential. */
export const unauthenticated = (): DomainError => new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credential.');

export const invalidField = (path: string, issue: string): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', [{ path, issue }]);

/** D-9: managing members needs a full credential. */
export const manageNeedsFullCredential = (): DomainError =>
  new DomainError(ErrorCode.FORBIDDEN, 'Managing members needs a full credential.');

export const onlyOwnersAndAdminsManage = (): DomainError => new DomainError(ErrorCode.FORBIDDEN, 'Only owners and admins manage members.');

export const onlyOwnerChangesOwners = (): DomainError => new DomainError(ErrorCode.FORBIDDEN, 'Only an owner may make or unmake an owner.');

export const onlyOwnerDeactivatesOwners = (): DomainError => new DomainError(ErrorCode.FORBIDDEN, 'Only an owner may deactivate an owner.');

/** D-7: another workspace's member and a missing one look the same. */
export const memberNotFound = (memberId: string): DomainError => new DomainError(ErrorCode.NOT_FOUND, `No member ${memberId}.`);
