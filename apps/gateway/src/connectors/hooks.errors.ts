import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-36: a delivery whose signature does not verify (the message says why). */
export const signatureRefused = (message: string): DomainError => new DomainError(ErrorCode.UNAUTHENTICATED, message);

export const deliveryTooLarge = (provider: string, limit: number): DomainError =>
  new DomainError(ErrorCode.PAYLOAD_TOO_LARGE, `A ${provider} delivery above ${limit} bytes cannot be accepted in this form.`);

export const formWithoutPayload = (): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'A form-encoded delivery needs a payload field.');

export const deliveryNotJson = (): DomainError => new DomainError(ErrorCode.INVALID_JSON, 'The delivery body is not valid JSON.');
