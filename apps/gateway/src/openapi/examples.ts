import { createHash } from 'node:crypto';

/**
 * Examples derived from the schemas, so that every request and response of
 * the document carries one a client generator or "Try it out" can use, and
 * none can drift from its schema (the integration test validates each one).
 * A property's own `examples` (or `default`, or first `enum` value) wins;
 * a nullable value is null; formats give realistic values; a string with a pattern or no format must
 * bring its own example, since a value generated from a pattern reads like
 * noise (`7447-48-02T01:98:55-73:26`).
 */
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The moment the examples describe: a Monday morning. */
const DATE_TIME = '2026-03-02T09:30:00Z';
const DATE = '2026-03-02';

/** A stable, well-formed UUID (version 4 layout) per property name, so that related ids differ. */
export function exampleUuid(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const FORMATS: Record<string, (name: string) => string> = {
  uuid: exampleUuid,
  'date-time': () => DATE_TIME,
  date: () => DATE,
  email: () => 'ada@example.com',
  uri: () => 'https://calendar.example.org/team.ics',
};

export class MissingExampleError extends Error {}

/** An example or default of the schema itself, or of one of its alternatives (a nullable field's value). */
const hasOwnExample = (schema: unknown): boolean =>
  isObject(schema) &&
  (Array.isArray(schema.examples) ||
    'default' in schema ||
    (Array.isArray(schema.anyOf) && schema.anyOf.some((option) => isObject(option) && option.type !== 'null' && hasOwnExample(option))));

/**
 * An example value of `schema`; `name` is where it is (for ids and errors),
 * `resolve` looks up `#/components/schemas/…` references.
 */
export function exampleOf(schema: unknown, name: string, resolve: (ref: string) => unknown, depth = 0): unknown {
  if (depth > 20) throw new MissingExampleError(`${name}: schemas nest too deep for an example`);
  if (!isObject(schema)) return {};
  if (typeof schema.$ref === 'string') return exampleOf(resolve(schema.$ref), name, resolve, depth + 1);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if ('const' in schema) return schema.const;
  if ('default' in schema && schema.default !== null) return schema.default;
  if (Array.isArray(schema.enum)) {
    const value: unknown = (schema.enum as unknown[]).find((v) => v !== null);
    if (value !== undefined) return value;
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) {
      const option: unknown = (options as unknown[]).find((o) => !(isObject(o) && o.type === 'null'));
      if (option !== undefined) return exampleOf(option, name, resolve, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((part) => exampleOf(part, name, resolve, depth + 1));
    return parts.every(isObject) ? Object.assign({}, ...parts) : parts[0];
  }

  const types: unknown[] = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
  // A nullable value without an example of its own: null is as realistic as any.
  if (types.includes('null')) return null;
  const type: unknown = types.find((t) => t !== 'null') ?? (types.includes('null') ? 'null' : undefined);
  switch (type) {
    case 'null':
      return null;
    case 'object':
    case undefined: {
      const properties = isObject(schema.properties) ? schema.properties : {};
      const required = new Set(Array.isArray(schema.required) ? schema.required : []);
      const value: Json = {};
      for (const [key, property] of Object.entries(properties)) {
        // Optional request fields appear when they have an example of their own: a realistic request, not every knob.
        const shown = required.has(key) || hasOwnExample(property);
        if (shown) value[key] = exampleOf(property, `${name}.${key}`, resolve, depth + 1);
      }
      return value;
    }
    case 'array': {
      const count = Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1);
      return Array.from({ length: count }, (_, i) => exampleOf(schema.items, `${name}[${i}]`, resolve, depth + 1));
    }
    case 'integer':
    case 'number': {
      const minimum = typeof schema.minimum === 'number' ? schema.minimum : undefined;
      const maximum = typeof schema.maximum === 'number' ? schema.maximum : undefined;
      return Math.min(maximum ?? Infinity, Math.max(minimum ?? 1, 1));
    }
    case 'boolean':
      return false;
    case 'string': {
      const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
      if (format) return format(name.replace(/^.*[.\s]/, '').replace(/\[\d+\]$/, ''));
      throw new MissingExampleError(`${name}: a string without a format needs an example (examples: [...])`);
    }
    default:
      throw new MissingExampleError(`${name}: no example for type ${String(type)}`);
  }
}
