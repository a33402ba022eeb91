import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-8: nothing tells a missing, wrong, revoked or expired credential apart. */
export const unauthenticated = (): DomainError => new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credential.');

/** D-9: a report_only credential reports and reads, nothing else. */
export const reportOnlyCredential = (): DomainError =>
  new DomainError(ErrorCode.FORBIDDEN, 'This credential is report_only: it may only report its own sessions and activity, and read.');

/** D-42: the workspace requires two-factor of this member; until they enrol, a browser session may only enrol. */
export const twoFactorRequired = (): DomainError =>
  new DomainError(ErrorCode.TWO_FACTOR_REQUIRED, 'Your workspace requires two-factor: turn it on (POST /v1/me/totp) to continue.');
