import 'reflect-metadata';
import Ajv, { type AnySchemaObject, type ValidateFunction } from 'ajv';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { getMetadataStorage, ValidationTypes, validateSync, type ValidationArguments, type ValidationError } from 'class-validator';

/**
 * Class-validator's rules compiled once per class into an ajv 8
 * validator, so a valid message costs one compiled function call instead of a
 * class-validator walk (which collects each class's metadata again on every
 * `validate()`, for each of the 100 nested events of a batch).
 *
 * The compiled check only ever says "valid": whatever it refuses is validated
 * again by class-validator itself, which names the failures (same D-2 codes,
 * same messages, same field paths as before). So the compiled schema may be
 * stricter than the decorators but never looser:
 *
 * - a property is required unless it is `@IsOptional()` (then null or absent
 *   skips its rules, as in class-validator); unknown properties are refused
 *   (`whitelist` + `forbidNonWhitelisted`);
 * - a few decorators become native keywords whose meaning is identical on
 *   JSON values (`IsString` → type string, `IsInt` → integer, `Min` →
 *   number ≥ n, `IsIn` of primitives → enum…); every other rule calls the
 *   decorator's own constraint function (the `cv` keyword), so `IsUUID`,
 *   `Matches`, `IsISO8601`, `MaxLength` and our custom decorators mean exactly
 *   what they mean to class-validator;
 * - `@ValidateNested()` needs `@Type` to a class that compiles too; `each`
 *   nests an array of it.
 *
 * A class with anything else (`@ValidateIf`, groups, async or promise rules,
 * class-transformer `@Transform`/`@Expose`/`@Exclude`, `@Type` to a value
 * class such as Date) does not compile: it is validated by class-validator
 * alone, as before.
 */

type Ctor = abstract new (...args: never[]) => object;
type Metadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

/** A rule ajv cannot express natively: the constraint's own `validate`, called as class-validator calls it. */
interface ConstraintCheck {
  metadata: Metadata;
  validators: Array<(value: unknown, args: ValidationArguments) => unknown>;
  /** The arguments object of this rule, its `object` and `value` set for each call (the validators are synchronous and keep none). */
  args: ValidationArguments;
}

const checks: ConstraintCheck[] = [];

const NO_OBJECT = Object.freeze({});

/** A promise (an async rule) is not a yes: class-validator decides. */
const passed = (valid: unknown): boolean => Boolean(valid) && typeof (valid as { then?: unknown }).then !== 'function';

function runCheck(index: number, value: unknown, parent: unknown): boolean {
  const { metadata, validators, args } = checks[index];
  args.object = parent as object;
  args.value = value;
  let ok = true;
  for (const validate of validators) {
    if (metadata.each && Array.isArray(value)) ok = (value as unknown[]).every((v) => passed(validate(v, args)));
    else ok = passed(validate(value, args));
    if (!ok) break;
  }
  // The checked body is not kept alive by the rule's arguments.
  args.object = NO_OBJECT;
  args.value = undefined;
  return ok;
}

const ajv = new Ajv({
  allErrors: false,
  strict: false,
  ownProperties: true,
  // The rules come from our own decorators, never from a client.
  validateSchema: false,
  addUsedSchema: false,
});
ajv.addKeyword({
  keyword: 'cv',
  schemaType: 'number',
  errors: false,
  validate: (index: number, data: unknown, _schema?: AnySchemaObject, cxt?: { parentData: unknown }): boolean =>
    runCheck(index, data, cxt?.parentData),
});

/** Decorators whose class-validator meaning on a parsed-JSON value is exactly an ajv keyword. */
function nativeSchema(metadata: Metadata): AnySchemaObject | undefined {
  if (metadata.each) return undefined;
  const c = (metadata.constraints ?? []) as unknown[];
  switch (metadata.name ?? '') {
    case 'isString':
      return { type: 'string' };
    case 'isInt':
      return { type: 'integer' };
    case 'isBoolean':
      return { type: 'boolean' };
    case 'isObject':
      return { type: 'object' };
    case 'isArray':
      return { type: 'array' };
    case 'arrayMinSize':
      return typeof c[0] === 'number' ? { type: 'array', minItems: c[0] } : undefined;
    case 'arrayMaxSize':
      return typeof c[0] === 'number' ? { type: 'array', maxItems: c[0] } : undefined;
    case 'min':
      return typeof c[0] === 'number' ? { type: 'number', minimum: c[0] } : undefined;
    case 'max':
      return typeof c[0] === 'number' ? { type: 'number', maximum: c[0] } : undefined;
    case 'isIn': {
      const values = c[0];
      const primitive = (v: unknown): boolean =>
        typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
      return Array.isArray(values) && values.every(primitive) ? { enum: values } : undefined;
    }
    default:
      return undefined;
  }
}

class NotCompilable extends Error {}

function constraintCheck(metadata: Metadata): AnySchemaObject {
  const constraints = getMetadataStorage().getTargetValidatorConstraints(metadata.constraintCls);
  if (constraints.length === 0 || constraints.some((c) => c.async)) throw new NotCompilable();
  const validators = constraints.map((c) => {
    const instance = c.instance;
    return (value: unknown, args: ValidationArguments): unknown => instance.validate(value, args);
  });
  const args: ValidationArguments = {
    targetName: (metadata.target as { name?: string }).name ?? '',
    property: metadata.propertyName,
    object: NO_OBJECT,
    value: undefined,
    constraints: metadata.constraints as unknown[],
  };
  checks.push({ metadata, validators, args });
  return { cv: checks.length - 1 };
}

function classSchema(cls: Ctor, seen: Set<Ctor>): AnySchemaObject {
  if (seen.has(cls)) throw new NotCompilable(); // recursive classes stay with class-validator
  const inner = new Set(seen).add(cls);
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(cls, undefined as unknown as string, false, false, undefined);
  if (metadatas.length === 0) throw new NotCompilable(); // forbidUnknownValues: class-validator refuses such a value
  if (defaultMetadataStorage.getExposedMetadatas(cls).length > 0 || defaultMetadataStorage.getExcludedMetadatas(cls).length > 0)
    throw new NotCompilable();

  const byProperty = new Map<string, Metadata[]>();
  for (const m of metadatas) {
    if ((m.groups ?? []).length > 0 || m.always) throw new NotCompilable();
    byProperty.set(m.propertyName, [...(byProperty.get(m.propertyName) ?? []), m]);
  }
  const properties: Record<string, AnySchemaObject> = {};
  const required: string[] = [];
  for (const [property, list] of byProperty) {
    if (defaultMetadataStorage.findTransformMetadatas(cls, property, 0).length > 0) throw new NotCompilable();
    const typeMeta = defaultMetadataStorage.findTypeMetadata(cls, property);
    let optional = false;
    let ruled = false;
    const rules: AnySchemaObject[] = [];
    const defined: AnySchemaObject[] = [];
    for (const m of list) {
      switch (m.type) {
        case ValidationTypes.CONDITIONAL_VALIDATION:
          if (m.name !== 'isOptional') throw new NotCompilable();
          optional = true;
          break;
        case ValidationTypes.WHITELIST:
          break;
        case ValidationTypes.IS_DEFINED:
          defined.push({ not: { type: 'null' } }, constraintCheck(m));
          break;
        case ValidationTypes.CUSTOM_VALIDATION:
          ruled = true;
          rules.push(nativeSchema(m) ?? constraintCheck(m));
          break;
        case ValidationTypes.NESTED_VALIDATION: {
          ruled = true;
          if (!typeMeta) throw new NotCompilable();
          const nested = classRef(typeMeta.typeFunction() as Ctor, inner);
          rules.push(m.each ? { type: 'array', items: nested } : nested);
          break;
        }
        default:
          throw new NotCompilable(); // promise validation and anything newer
      }
    }
    // @Type turns a plain object into an instance; only nested validation may use it.
    if (typeMeta && !list.some((m) => m.type === ValidationTypes.NESTED_VALIDATION)) throw new NotCompilable();
    const ruleSchema: AnySchemaObject = rules.length === 0 ? {} : { allOf: rules };
    const valueSchema = optional ? { anyOf: [{ type: 'null' }, ruleSchema] } : ruleSchema;
    properties[property] = defined.length === 0 ? valueSchema : { allOf: [...defined, valueSchema] };
    if (defined.length > 0 || (!optional && ruled)) required.push(property);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** Each class's schema, added to ajv once under its own id (null: it does not compile). */
const schemaIds = new Map<Ctor, string | null>();

/**
 * A reference to a class's schema: a nested class (an actor, a member
 * profile) is compiled once and shared by every contract that holds it,
 * instead of inlined in each.
 */
function classRef(cls: Ctor, seen: Set<Ctor>): AnySchemaObject {
  let id = schemaIds.get(cls);
  if (id === null) throw new NotCompilable();
  if (id === undefined) {
    try {
      const schema = classSchema(cls, seen);
      id = `worktrack:class:${schemaIds.size}:${cls.name}`;
      ajv.addSchema({ ...schema, $id: id });
      schemaIds.set(cls, id);
    } catch (err) {
      if (err instanceof NotCompilable && !seen.has(cls)) schemaIds.set(cls, null);
      throw err;
    }
  }
  return { $ref: id };
}

const compiled = new WeakMap<Ctor, ValidateFunction | null>();

/**
 * The compiled check of a class (compiled on first use, then cached), or
 * null when the class's rules do not compile (class-validator alone).
 */
export function compiledCheck(cls: Ctor): ValidateFunction | null {
  let check = compiled.get(cls);
  if (check === undefined) {
    try {
      const { $ref } = classRef(cls, new Set()) as { $ref: string };
      check = ajv.getSchema($ref) ?? null;
    } catch (err) {
      if (!(err instanceof NotCompilable)) throw err;
      check = null;
    }
    compiled.set(cls, check);
  }
  return check;
}

/**
 * `validateSync(instance, { whitelist: true, forbidNonWhitelisted: true })`
 * with the compiled check first: the same errors, and none of
 * class-validator's cost for a valid instance.
 */
export function validateWhitelisted(instance: object): ValidationError[] {
  const check = compiledCheck(instance.constructor as Ctor);
  if (check && check(instance)) return [];
  return validateSync(instance, { whitelist: true, forbidNonWhitelisted: true });
}
