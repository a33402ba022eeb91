import { ValidationPipe } from '@nestjs/common';
import { ErrorCode, flattenValidationErrors } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/**
 * Global validation (D-3): DTOs are whitelisted and unknown fields are
 * rejected; every failure is a 400 VALIDATION_FAILED with `details`.
 */
export function gatewayValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', flattenValidationErrors(errors)),
  });
}
