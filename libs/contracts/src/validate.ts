import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import type { ErrorDetail } from './error-codes';
import type { PayloadClass } from './message';

export class ContractViolation extends Error {
  constructor(
    readonly contract: string,
    readonly details: ErrorDetail[],
  ) {
    super(`${contract}: ${details.map((d) => `${d.path} ${d.issue}`).join('; ')}`);
    this.name = 'ContractViolation';
  }
}

/** Flattens class-validator errors into D-1 `details` entries. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const error of errors) {
    const path =
      parent === '' ? error.property : /^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`;
    for (const issue of Object.values(error.constraints ?? {})) out.push({ path, issue });
    if (error.children && error.children.length > 0) out.push(...flattenValidationErrors(error.children, path));
  }
  return out;
}

/**
 * Validates a plain object against a contract payload class. Unknown fields
 * are violations too: what crosses a topic is exactly the contract.
 */
export function parsePayload<T extends object>(cls: PayloadClass<T>, plain: unknown, contract = cls.name): T {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    throw new ContractViolation(contract, [{ path: '', issue: 'payload must be an object' }]);
  }
  const instance = plainToInstance(cls, plain);
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) throw new ContractViolation(contract, flattenValidationErrors(errors));
  return instance;
}
