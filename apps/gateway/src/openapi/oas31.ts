/**
 * @nestjs/swagger and class-validator-jsonschema still write a few OpenAPI
 * 3.0 schema forms; this rewrites them as OpenAPI 3.1 (JSON Schema 2020-12):
 * `nullable: true` becomes a `null` type (or an `anyOf` with one around a
 * reference), a schema `example` becomes `examples`, and boolean
 * `exclusiveMinimum`/`exclusiveMaximum` become numbers. In place.
 */
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const SUBSCHEMA_KEYS = ['items', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else'];
const SUBSCHEMA_LIST_KEYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAP_KEYS = ['properties', 'patternProperties', '$defs'];

export function normalizeSchema(schema: Json): void {
  for (const key of SUBSCHEMA_KEYS) if (isObject(schema[key])) normalizeSchema(schema[key]);
  for (const key of SUBSCHEMA_LIST_KEYS) {
    const list = schema[key];
    if (Array.isArray(list)) list.filter(isObject).forEach(normalizeSchema);
  }
  for (const key of SUBSCHEMA_MAP_KEYS) {
    const map = schema[key];
    if (isObject(map)) Object.values(map).filter(isObject).forEach(normalizeSchema);
  }

  if ('example' in schema) {
    schema.examples = [schema.example];
    delete schema.example;
  }
  for (const [exclusive, boundKey] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    const flag = schema[exclusive];
    const bound = schema[boundKey];
    if (typeof flag !== 'boolean') continue;
    delete schema[exclusive];
    if (flag && typeof bound === 'number') {
      schema[exclusive] = bound;
      delete schema[boundKey];
    }
  }

  const nullable = schema.nullable === true;
  delete schema.nullable;
  if (!nullable) return;
  if (typeof schema.type === 'string' && !('$ref' in schema) && !('allOf' in schema)) {
    schema.type = [schema.type, 'null'];
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...(schema.enum as unknown[]), null];
    return;
  }
  const { description, ...rest } = schema;
  for (const key of Object.keys(schema)) delete schema[key];
  Object.assign(schema, { ...(description === undefined ? {} : { description }), anyOf: [rest, { type: 'null' }] });
}

/**
 * Every schema of a document: under `components.schemas`, and wherever a
 * `schema` key holds one (parameters, headers, media types). Examples are
 * values, not schemas, and are left alone.
 */
export function normalizeDocument(document: object): void {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'example' || key === 'examples') continue;
      if (key === 'schema' && isObject(value)) normalizeSchema(value);
      else if (key === 'schemas' && isObject(value) && node === (document as Json).components) {
        Object.values(value).filter(isObject).forEach(normalizeSchema);
      } else visit(value);
    }
  };
  visit(document);
}
