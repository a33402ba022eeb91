import { applyDecorators, type Type } from '@nestjs/common';
import { ApiBody, ApiParam, ApiQuery, type SchemaObject } from '@nestjs/swagger';
import type { MetadataStorage as TransformerMetadataStorage } from 'class-transformer/types/MetadataStorage';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import type { ISchemaConverters } from 'class-validator-jsonschema/build/defaultConverters';
import { createRequire } from 'node:module';
import { CALENDAR_DATE_PATTERN, RFC3339_PATTERN } from '@worktrack/contracts';

/**
 * Request schemas come from the class-validator rules the validation pipe
 * enforces (one source for validation and documentation): a DTO's
 * `@MaxLength(100)` is the document's `maxLength: 100`. Response classes,
 * which nothing validates, carry `@ApiProperty` instead.
 */

export const SCHEMA_PREFIX = '#/components/schemas/';

/** For `@JSONSchema({ pattern })` on `@IsUUID()` path parameters (class-validator's UUID check has no schema pattern of its own). */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

// class-transformer keeps `@Type(() => Nested)` in a storage its index does
// not export; class-validator-jsonschema needs it to resolve nested arrays.
const { defaultMetadataStorage } = createRequire(__filename)('class-transformer/cjs/storage') as {
  defaultMetadataStorage: TransformerMetadataStorage;
};

/** The shared rules of `@worktrack/contracts`, as JSON Schema. */
const additionalConverters: ISchemaConverters = {
  maxCodePoints: (meta) => ({ type: 'string', maxLength: meta.constraints?.[0] as number }),
  isDateTime: { type: 'string', format: 'date-time', pattern: RFC3339_PATTERN.source },
  isCalendarDate: { type: 'string', format: 'date', pattern: CALENDAR_DATE_PATTERN.source },
  // An object checked only for being one is opaque: any properties (a generated client types it as a record).
  isObject: { type: 'object', additionalProperties: true },
};

const options = { refPointerPrefix: SCHEMA_PREFIX, classTransformerMetadataStorage: defaultMetadataStorage, additionalConverters };

/**
 * Examples of the contract classes the document shows (the contracts carry
 * validation rules, not documentation), by schema name.
 */
const INTERVAL = (start: string, end: string): { start: string; end: string } => ({ start, end });
const WEEKDAY = [INTERVAL('09:00', '12:30'), INTERVAL('13:30', '17:30')];
const CONTRACT_EXAMPLES: Record<string, unknown> = {
  WorkingInterval: INTERVAL('09:00', '17:30'),
  WorkingHours: { mon: WEEKDAY, tue: WEEKDAY, wed: WEEKDAY, thu: WEEKDAY, fri: [INTERVAL('09:00', '15:00')], sat: [], sun: [] },
};

/** Classes whose validation rules become component schemas, by schema name. */
const documented = new Map<string, Type>();

function register(type: Type): void {
  const known = documented.get(type.name);
  if (known && known !== type) throw new Error(`two documented classes are named ${type.name}`);
  documented.set(type.name, type);
}

/** `type`, whose component schema is to be derived from its class-validator rules (for `@ApiProperty({ type })`). */
export function documentedByValidation<T extends Type>(type: T): T {
  register(type);
  return type;
}

/** A `$ref` to the schema derived from `type`'s class-validator rules. */
export function validatedSchemaRef(type: Type): { $ref: string } {
  register(type);
  return { $ref: `${SCHEMA_PREFIX}${type.name}` };
}

/** The JSON request body, documented from the DTO's validation rules (several DTOs: one of them). */
export function ApiValidatedBody(...types: [Type, ...Type[]]): MethodDecorator {
  const refs = types.map(validatedSchemaRef);
  return ApiBody({ required: true, schema: refs.length === 1 ? refs[0] : { oneOf: refs } });
}

/** Path parameters, one per property of the DTO bound with `@Param()`, from its validation rules. */
export const ApiValidatedParams = (type: Type): MethodDecorator =>
  applyDecorators(...parametersOf(type).map(({ name, description, schema }) => ApiParam({ name, required: true, description, schema })));

/** Query parameters, one per property of the DTO bound with `@Query()`, from its validation rules. */
export const ApiValidatedQuery = (type: Type): MethodDecorator =>
  applyDecorators(
    ...parametersOf(type).map(({ name, required, description, schema }) => ApiQuery({ name, required, description, schema })),
  );

function parametersOf(type: Type): Array<{ name: string; required: boolean; description?: string; schema: SchemaObject }> {
  const schema = schemaOf(type, { nullableOptionals: false });
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property as SchemaObject;
    return { name, required: required.has(name), ...(description ? { description } : {}), schema: rest };
  });
}

/**
 * The schemas of the documented classes among `names` (the schema names a
 * document refers to) and of the classes nested in them (through
 * `@ValidateNested() @Type(() => X)`). Unknown fields are rejected (D-3), so
 * every object is closed.
 */
export function validationSchemas(names: Iterable<string>): Record<string, SchemaObject> {
  const schemas: Record<string, SchemaObject> = {};
  const pending = [...new Set(names)].flatMap((name) => documented.get(name) ?? []);
  const seen = new Set<Type>();
  for (let type = pending.pop(); type; type = pending.pop()) {
    if (seen.has(type)) continue;
    seen.add(type);
    const schema = schemaOf(type, { nullableOptionals: true });
    schemas[type.name] = schema;
    for (const name of Object.keys(schema.properties ?? {})) {
      const nested = defaultMetadataStorage.findTypeMetadata(type, name)?.typeFunction() as Type | undefined;
      if (nested) {
        register(nested);
        pending.push(nested);
      }
    }
  }
  return schemas;
}

/**
 * An optional body field, which may also be null. With a default, the
 * default goes on the non-null alternative: client generators (openapi-typescript)
 * read a default at the top of a component's property as "always present" and
 * would make clients send it.
 */
function nullableOptional(property: SchemaObject): SchemaObject {
  if (!('default' in property)) return { ...property, nullable: true };
  const { description, ...value } = property;
  return { ...(description ? { description } : {}), anyOf: [value, { type: 'null' }] };
}

/**
 * In a JSON body, a property that `@IsOptional()` lets be left out may also
 * be null (class-validator skips both); in a path or query it is a string.
 */
function schemaOf(type: Type, { nullableOptionals }: { nullableOptionals: boolean }): SchemaObject {
  const schema = targetConstructorToSchema(type, options) as SchemaObject;
  const required = new Set(schema.required ?? []);
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, property]) => [
      name,
      required.has(name) || !nullableOptionals ? property : nullableOptional(property as SchemaObject),
    ]),
  );
  const example = CONTRACT_EXAMPLES[type.name];
  return { ...schema, type: 'object', properties, additionalProperties: false, ...(example ? { examples: [example] } : {}) };
}
