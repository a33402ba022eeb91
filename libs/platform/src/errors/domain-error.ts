import { ErrorCode, type ErrorBody, type ErrorDetail } from '@worktrack/contracts';

/**
 * A failure a client can cause, or a dependency being down. Carries a D-2 code
 * (a string, so it survives the Kafka boundary); the gateway maps codes to
 * HTTP statuses in one place. Services never throw HttpException.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = 'DomainError';
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, ...(this.details?.length ? { details: this.details } : {}) };
  }

  static fromBody(body: ErrorBody): DomainError {
    return new DomainError(body.code, body.message, body.details);
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
