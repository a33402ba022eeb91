import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-5: the member used up its requests for the rolling window (429 RATE_LIMITED). */
export class RateLimitedError extends DomainError {
  constructor(limit: number, windowMs: number, retryAfterSeconds: number) {
    super(ErrorCode.RATE_LIMITED, `Rate limit of ${limit} requests per ${windowMs / 1000} s exceeded; retry in ${retryAfterSeconds} s.`);
    this.name = 'RateLimitedError';
  }
}

/** Issue 14: the client address caused too many unauthenticated failures in the window (429 RATE_LIMITED, with Retry-After). */
export const addressLimited = (limit: number, windowMs: number, retryAfterSeconds: number): DomainError =>
  new DomainError(
    ErrorCode.RATE_LIMITED,
    `Too many failed authentications from this address (${limit} per ${windowMs / 1000} s); retry in ${retryAfterSeconds} s.`,
  );
