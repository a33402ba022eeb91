import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-41: why a single sign-on is refused, in words a person reads on the page (never a code, state or secret). */
export const unknownProvider = (id: string): DomainError =>
  new DomainError(ErrorCode.NOT_FOUND, `There is no sign-in provider "${id}" here.`);

export const providerUnreachable = (name: string): DomainError =>
  new DomainError(
    ErrorCode.UNAVAILABLE,
    `${name} cannot be reached right now, so signing in with it does not work. Try again in a moment.`,
    [{ path: 'retry_after', issue: '30' }],
  );

export const flowNotFound = (): DomainError =>
  new DomainError(
    ErrorCode.UNAUTHENTICATED,
    'This sign-in was not started in this browser, was already used, or took too long. Start signing in again.',
  );

export const stateMismatch = (): DomainError =>
  new DomainError(
    ErrorCode.UNAUTHENTICATED,
    'The answer from the sign-in provider does not belong to the sign-in this browser started. Start again.',
  );

export const providerDeclined = (error: string): DomainError =>
  new DomainError(ErrorCode.UNAUTHENTICATED, `The sign-in provider did not sign you in (${error}).`);

export const codeRefused = (): DomainError =>
  new DomainError(
    ErrorCode.UNAUTHENTICATED,
    'The sign-in provider refused the sign-in code: it was used already or has expired. Start again.',
  );

export const answerNotVerified = (): DomainError =>
  new DomainError(ErrorCode.UNAUTHENTICATED, 'The answer from the sign-in provider could not be verified. Start again.');

export const emailMissing = (): DomainError =>
  new DomainError(ErrorCode.FORBIDDEN, 'The sign-in provider did not share your email address, so you cannot be signed in here.');

export const emailNotVerified = (): DomainError =>
  new DomainError(ErrorCode.FORBIDDEN, 'The sign-in provider has not verified your email address, so it cannot sign you in here.');

export const foreignDomain = (domain: string): DomainError =>
  new DomainError(ErrorCode.FORBIDDEN, `Email addresses at ${domain} cannot sign in with this provider.`);

export const noSuchMember = (): DomainError =>
  new DomainError(
    ErrorCode.FORBIDDEN,
    'No member of this workspace has your email address, and this provider does not let new people join. Ask an admin for an invite.',
  );

export const memberDeactivated = (): DomainError => new DomainError(ErrorCode.FORBIDDEN, 'This member is deactivated and cannot sign in.');
