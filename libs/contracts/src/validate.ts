import 'reflect-metadata';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import type { ValidationError } from 'class-validator';
import { compiledCheck, validateWhitelisted } from './compiled-validation';
import type { ErrorDetail } from './error-codes';
import { findUnsafeInput } from './input-safety';
import type { PayloadClass } from './message';

export { compiledCheck, validateWhitelisted } from './compiled-validation';

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

type Ctor = new () => object;

/**
 * Builds class instances from parsed JSON only along the paths the classes
 * declare with `@Type` (what class-validator needs for `@ValidateNested`);
 * every other value is kept by reference. class-transformer's
 * `plainToInstance` walks and copies every nested value too, which for a
 * batch of events with opaque payloads costs milliseconds (docs/benchmarks.md).
 */
export function hydrate<T extends object>(cls: new () => T, plain: object): T {
  const instance = Object.assign(new cls(), plain);
  for (const key of Object.keys(plain)) {
    const meta = defaultMetadataStorage.findTypeMetadata(cls, key);
    if (!meta) continue;
    const value = (instance as Record<string, unknown>)[key];
    const nested = meta.typeFunction() as Ctor;
    if (Array.isArray(value)) {
      (instance as Record<string, unknown>)[key] = value.map((v: unknown) => (isPlainObject(v) ? hydrate(nested, v) : v));
    } else if (isPlainObject(value)) {
      (instance as Record<string, unknown>)[key] = hydrate(nested, value);
    }
  }
  return instance;
}

/**
 * `validateWhitelisted(hydrate(cls, plain))` for parsed JSON, without
 * building the instances when the class's compiled check accepts the plain
 * value as it is: the check reads own properties only, which the instances
 * share with the plain value (the request DTOs declare no initial values).
 * Anything the check refuses, and a class that does not compile, is hydrated
 * and named by class-validator as before. `value` is the plain value when it
 * passed, else the instance (what the rules after this step read).
 */
export function checkPlain<T extends object>(cls: new () => T, plain: object): { value: T; errors: ValidationError[] } {
  const check = compiledCheck(cls);
  if (check !== null && check(plain)) return { value: plain as T, errors: [] };
  const instance = hydrate(cls, plain);
  return { value: instance, errors: validateWhitelisted(instance) };
}

const isPlainObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Validates a plain object against a contract payload class. Unknown fields
 * are violations too: what crosses a topic is exactly the contract. A valid
 * payload is returned as parsed (`checkPlain`: the contracts declare no
 * initial values nor methods), instances only for a class that does not
 * compile.
 */
export function parsePayload<T extends object>(cls: PayloadClass<T>, plain: unknown, contract = cls.name): T {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    throw new ContractViolation(contract, [{ path: '', issue: 'payload must be an object' }]);
  }
  // What no Postgres column can hold (NUL, lone surrogates), nor any
  // recursive step walk (depth), nor an object merge survive (__proto__),
  // never reaches a handler, whichever producer (the gateway, a connector) sent it.
  const unsafe = findUnsafeInput(plain);
  if (unsafe.length > 0)
    throw new ContractViolation(
      contract,
      unsafe.map(({ path, issue }) => ({ path, issue })),
    );
  // The contract's compiled check, on the parsed value as it is; class-validator only names what it refuses.
  const { value, errors } = checkPlain(cls, plain);
  if (errors.length > 0) throw new ContractViolation(contract, flattenValidationErrors(errors));
  return value;
}

/**
 * What a payload is on the wire: its JSON text, and that text parsed back (the
 * plain value a consumer will see, which the producer validates).
 */
export function toWire(payload: object): { text: string; plain: unknown } {
  const text = JSON.stringify(payload);
  return { text, plain: JSON.parse(text) as unknown };
}
