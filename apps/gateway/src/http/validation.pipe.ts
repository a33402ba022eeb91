import { ValidationPipe, type ArgumentMetadata } from '@nestjs/common';
import { compiledCheck, ErrorCode, flattenValidationErrors, hydrate } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

type Ctor = new () => object;

/**
 * Nest's ValidationPipe with the DTO's compiled check first: a
 * valid body, query or set of path parameters whose DTO compiles
 * (libs/contracts compiled-validation: the same class-validator rules as one
 * ajv function) becomes the DTO instance without class-transformer's deep
 * copy and class-validator's walk. Anything the check refuses, and every DTO
 * that does not compile (a query DTO converting with `@Type(() => Number)`,
 * for one), goes through ValidationPipe as before, so the errors a client
 * sees are unchanged.
 */
export class CompiledValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype, type } = metadata;
    if ((type === 'body' || type === 'query' || type === 'param') && typeof metatype === 'function' && isPlainObject(value)) {
      const check = compiledCheck(metatype as Ctor);
      if (check !== null) {
        const instance = hydrate(metatype as Ctor, value);
        if (check(instance)) return instance;
      }
    }
    return super.transform(value, metadata);
  }
}

const isPlainObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Global validation (D-3): DTOs are whitelisted and unknown fields are
 * rejected; every failure is a 400 VALIDATION_FAILED with `details`.
 */
export function gatewayValidationPipe(): ValidationPipe {
  return new CompiledValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', flattenValidationErrors(errors)),
  });
}
