import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-5: the member used up its requests for the rolling window (429 RATE_LIMITED). */
export class RateLimitedError extends DomainError {
  constructor(limit: number, windowMs: number, retryAfterSeconds: number) {
    super(ErrorCode.RATE_LIMITED, `Rate limit of ${limit} requests per ${windowMs / 1000} s exceeded; retry in ${retryAfterSeconds} s.`);
    this.name = 'RateLimitedError';
  }
}
