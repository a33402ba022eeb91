import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-39: one answer whatever was wrong (unknown email, wrong password, deactivated member, no password set). */
export const invalidCredentials = (): DomainError => new DomainError(ErrorCode.INVALID_CREDENTIALS, 'The email or password is not right.');

export const secondFactorRequired = (): DomainError =>
  new DomainError(ErrorCode.SECOND_FACTOR_REQUIRED, 'Two-factor is on for this member: send totp_code or recovery_code.');

/** D-39: five failures per (email, address) in 15 minutes. */
export const tooManyFailures = (): DomainError =>
  new DomainError(ErrorCode.RATE_LIMITED, 'Too many failed sign-ins for this email from this address; try again later.', [
    { path: 'retry_after', issue: '900' },
  ]);

/** D-40: a refresh secret that signs nobody in (unknown, expired, ended, rotated out). */
export const refreshRefused = (): DomainError =>
  new DomainError(ErrorCode.UNAUTHENTICATED, 'The browser session is not valid; sign in again.');

export const passwordLoginOff = (): DomainError =>
  new DomainError(ErrorCode.FORBIDDEN, 'Password sign-in is turned off here; use single sign-on.');

export const browserSessionNotFound = (sid: string): DomainError => new DomainError(ErrorCode.NOT_FOUND, `No browser session ${sid}.`);

export const inviteNotFound = (id: string): DomainError => new DomainError(ErrorCode.NOT_FOUND, `No invite ${id}.`);

/** D-38: an invite link that does not work (unknown, used, withdrawn, expired) — one answer. */
export const inviteRefused = (): DomainError =>
  new DomainError(ErrorCode.INVALID_CREDENTIALS, 'The invite link is not valid: it was used, withdrawn or has expired.');

export const memberExists = (): DomainError =>
  new DomainError(ErrorCode.MEMBER_EXISTS, 'This email already belongs to an active member of the workspace.');

export const onlyOwnersAndAdminsInvite = (): DomainError => new DomainError(ErrorCode.FORBIDDEN, 'Only owners and admins invite.');

export const onlyOwnersInviteOwners = (): DomainError => new DomainError(ErrorCode.FORBIDDEN, 'Only owners invite owners.');

export const invitesNeedFullCredential = (): DomainError => new DomainError(ErrorCode.FORBIDDEN, 'Inviting needs a full credential.');

/** A 400, not a 401: the caller is signed in, and a client must not take this for its session having ended. */
export const wrongCurrentPassword = (): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'The current password is not right.', [{ path: 'current_password', issue: 'not right' }]);

export const invalid = (path: string, issue: string): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', [{ path, issue }]);
