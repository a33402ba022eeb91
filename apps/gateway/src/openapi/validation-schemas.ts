import { applyDecorators, type Type } from '@nestjs/common';
import { ApiBody, ApiParam, type SchemaObject } from '@nestjs/swagger';
import type { MetadataStorage as TransformerMetadataStorage } from 'class-transformer/types/MetadataStorage';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import { createRequire } from 'node:module';

/**
 * Request schemas come from the class-validator rules the validation pipe
 * enforces (one source for validation and documentation): a DTO's
 * `@MaxLength(100)` is the document's `maxLength: 100`. Response classes,
 * which nothing validates, carry `@ApiProperty` instead.
 */

export const SCHEMA_PREFIX = '#/components/schemas/';

// class-transformer keeps `@Type(() => Nested)` in a storage its index does
// not export; class-validator-jsonschema needs it to resolve nested arrays.
const { defaultMetadataStorage } = createRequire(__filename)('class-transformer/cjs/storage') as {
  defaultMetadataStorage: TransformerMetadataStorage;
};

const options = { refPointerPrefix: SCHEMA_PREFIX, classTransformerMetadataStorage: defaultMetadataStorage };

/** Classes whose validation rules become component schemas, by schema name. */
const documented = new Map<string, Type>();

function register(type: Type): void {
  const known = documented.get(type.name);
  if (known && known !== type) throw new Error(`two documented classes are named ${type.name}`);
  documented.set(type.name, type);
}

/** A `$ref` to the schema derived from `type`'s class-validator rules. */
export function validatedSchemaRef(type: Type): { $ref: string } {
  register(type);
  return { $ref: `${SCHEMA_PREFIX}${type.name}` };
}

/** The JSON request body, documented from the DTO's validation rules. */
export const ApiValidatedBody = (type: Type, description?: string): MethodDecorator =>
  ApiBody({ required: true, schema: validatedSchemaRef(type), ...(description ? { description } : {}) });

/** Path parameters, one per property of the DTO bound with `@Param()`, from its validation rules. */
export function ApiValidatedParams(type: Type): MethodDecorator {
  const schema = schemaOf(type);
  return applyDecorators(
    ...Object.entries(schema.properties ?? {}).map(([name, property]) =>
      ApiParam({ name, required: true, schema: property as SchemaObject }),
    ),
  );
}

/**
 * One schema per documented class and per class nested in one (through
 * `@ValidateNested() @Type(() => X)`). Unknown fields are rejected (D-3), so
 * every object is closed; a property that `@IsOptional()` lets be left out
 * may also be null (class-validator skips both).
 */
export function validationSchemas(): Record<string, SchemaObject> {
  const schemas: Record<string, SchemaObject> = {};
  const pending = [...documented.values()];
  const seen = new Set<Type>();
  for (let type = pending.pop(); type; type = pending.pop()) {
    if (seen.has(type)) continue;
    seen.add(type);
    const schema = schemaOf(type);
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

function schemaOf(type: Type): SchemaObject {
  const schema = targetConstructorToSchema(type, options) as SchemaObject;
  const required = new Set(schema.required ?? []);
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, property]) => [
      name,
      required.has(name) ? property : { ...(property as SchemaObject), nullable: true },
    ]),
  );
  return { ...schema, type: 'object', properties, additionalProperties: false };
}
