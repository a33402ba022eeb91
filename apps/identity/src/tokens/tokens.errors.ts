import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-8: nothing tells a wrong secret from a revoked token or a deactivated member. */
export const unauthenticated = (): DomainError => new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credential.');

export const unknownTokenId = (): DomainError =>
  new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credential.', [{ path: 'token_id', issue: 'unknown' }]);

/** D-36: a connector credential is minted for a member of the caller's workspace. */
export const credentialMemberNotFound = (): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', [
    { path: 'member_id', issue: 'no member with this id in your workspace' },
  ]);

export const onlyOwnerOrAdminConnectsForOthers = (): DomainError =>
  new DomainError(ErrorCode.FORBIDDEN, 'Only an owner or admin may connect a provider for another member.');

export const tokenNotFound = (tokenId: string): DomainError => new DomainError(ErrorCode.NOT_FOUND, `No token ${tokenId}.`);
