import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { parse } from 'yaml';
import { ErrorCode, httpStatusOf, SERVICE_NAMES } from '@worktrack/contracts';
import { memberWithToken, startAppProcess, type AppProcess, type MemberWithToken } from '@worktrack/testing';
import { call, type Reply } from './http';

type Page = { data: Array<Record<string, string>>; meta?: { cursor: string | null } };

/**
 * The fuzz stage. Every operation of the live `/openapi.yaml` gets
 * requests derived from its own schemas (parameters, body), mixed with the
 * hostile classes the edge must refuse (NUL, lone surrogates, deep nesting,
 * impossible dates, lengths padded with variation selectors, nulls,
 * prototype keys, broken percent-encoding, over-long parameters, encoded
 * bodies), sent to the real stack. Every answer must be below 500, one of
 * the operation's documented statuses, carry an `x-request-id`, and every
 * error must be the D-1 envelope with a D-2 code of that status. At the end
 * nothing a refused request sent is stored: every listed id came from an
 * accepted request.
 *
 * Deterministic: FUZZ_SEED replays a run (the seed is printed at the start and
 * in every failure); FUZZ_RUNS sets the requests per operation.
 */
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647);
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
  $ref?: string;
  example?: unknown;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema; example?: unknown; examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, unknown>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

/** A request to send: the path already encoded, the body as raw text (so hostile escapes survive). */
interface FuzzRequest {
  method: string;
  path: string;
  query: string;
  body?: string;
  encoding?: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

// --- The hostile classes -------------------------------------------------------

const HOSTILE_STRINGS = [
  'a\u0000b',
  '\u0000',
  'x\uD800',
  '\uDC00y',
  '2026-02-30T10:00:00Z',
  '2026-05-01T24:00:00Z',
  '0000-01-01T00:00:00Z',
  '2026-05-01T10:00:00+14:30',
  '2026-05-01T10:00:00-23:59',
  '9999-12-31T23:59:59-14:00',
  '0001-01-01T00:00:00+14:00',
  '2026-02-30',
  '2025-02-29',
  '0000-01-01',
  '9999-12-31',
  '2026-13-01',
  '__proto__',
  '',
  ' ',
];
/** Strings JSON cannot carry as literal characters but can as escapes, for raw bodies. */
const RAW_ESCAPES = ['"\\u0000"', '"\\ud800"', '"a\\udfff"', '"\\u0000\\u0000"'];

/** Variation selectors count as characters in Postgres: pad to just over the limit with them. */
const vsPadded = (max: number): string => 'a\uFE0F'.repeat(Math.ceil((max + 1) / 2));

const deepArray = (levels: number): string => '['.repeat(levels) + '0' + ']'.repeat(levels);

/** JSON text with values that JSON.stringify cannot produce (escapes, depth, prototype keys). */
type Json = { text: string };
const rawJson = (text: string): Json => ({ text });
const isRaw = (v: unknown): v is Json => typeof v === 'object' && v !== null && 'text' in v && Object.keys(v).length === 1;

function toText(value: unknown): string {
  if (isRaw(value)) return value.text;
  if (Array.isArray(value)) return `[${value.map(toText).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${toText(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const hostileValue = (schema: Schema | undefined): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(...RAW_ESCAPES).map(rawJson),
    fc.integer({ min: 65, max: 3_000 }).map((n) => rawJson(deepArray(n))),
    fc.constant(rawJson('{"__proto__":{"polluted":true}}')),
    fc.constant(rawJson('{"constructor":{"prototype":{"polluted":true}}}')),
    fc.constant(null),
    fc.constantFrom(-1, 0, 1.5, 2 ** 53, true, [], {}),
    fc.constant(vsPadded(schema?.maxLength ?? 256)),
    fc.constant('b'.repeat((schema?.maxLength ?? 2_000) + 1)),
  );

// --- Values from the document's schemas -----------------------------------------------------

function deref(doc: Doc, schema: Schema): Schema {
  let s = schema;
  for (let i = 0; s.$ref && i < 10; i++) s = doc.components.schemas[s.$ref.replace('#/components/schemas/', '')];
  if (s.allOf && s.allOf.length > 0) return Object.assign({}, ...s.allOf.map((p) => deref(doc, p)), { ...s, allOf: undefined }) as Schema;
  return s;
}

const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

function validValue(doc: Doc, input: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(doc, input);
  const variants = s.anyOf ?? s.oneOf;
  if (variants) return fc.oneof(...variants.map((v) => validValue(doc, v, depth)));
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const types = typesOf(s).filter((t) => t !== 'null');
  const nullable = typesOf(s).includes('null');
  const base = ((): fc.Arbitrary<unknown> => {
    switch (types[0]) {
      case 'integer':
        return fc.integer({ min: s.minimum ?? -5, max: s.maximum ?? 1_000 });
      case 'number':
        return fc.double({ min: s.minimum ?? -5, max: s.maximum ?? 1_000, noNaN: true });
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(validValue(doc, s.items ?? {}, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 3, 3) });
      case 'object': {
        if (!s.properties || depth > 3)
          return fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string(), fc.integer()), { maxKeys: 3 });
        const required = new Set(s.required ?? []);
        const props = Object.entries(s.properties);
        return fc.record(Object.fromEntries(props.map(([k, v]) => [k, validValue(doc, v, depth + 1)])), {
          requiredKeys: props.map(([k]) => k).filter((k) => required.has(k)),
        });
      }
      case 'string':
      default:
        return stringFor(s);
    }
  })();
  return nullable ? fc.oneof(base, fc.constant(null)) : base;
}

function stringFor(s: Schema): fc.Arbitrary<string> {
  const now = Date.now();
  switch (s.format ?? '') {
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc.integer({ min: now - 30 * 86_400_000, max: now + 60_000 }).map((ms) => new Date(ms).toISOString());
    case 'date':
      return fc.integer({ min: now - 5 * 86_400_000, max: now + 30 * 86_400_000 }).map((ms) => new Date(ms).toISOString().slice(0, 10));
    default:
      break;
  }
  if (s.pattern) return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length <= (s.maxLength ?? Infinity));
  return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 40), unit: 'grapheme' });
}

/** Mostly valid, sometimes a hostile value in its place. */
const fuzzedValue = (doc: Doc, schema: Schema): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 8, arbitrary: validValue(doc, schema) }, { weight: 1, arbitrary: hostileValue(deref(doc, schema)) });

/** A body: the schema's object with some fields fuzzed, sometimes a hostile key or nesting added. */
function bodyFor(doc: Doc, schema: Schema): fc.Arbitrary<string> {
  const s = deref(doc, schema);
  const props = Object.entries(s.properties ?? {});
  const required = new Set(s.required ?? []);
  const object = fc.record(Object.fromEntries(props.map(([k, v]) => [k, fuzzedValue(doc, v)])), {
    requiredKeys: props.map(([k]) => k).filter((k) => required.has(k)),
  });
  const extras = fc.oneof(
    { weight: 9, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.constant({ ['__proto__']: rawJson('{"admin":true}') }) },
    { weight: 1, arbitrary: fc.constant({ 'k\u0000': 1 }) },
    { weight: 1, arbitrary: fc.constant({ nest: rawJson(deepArray(5_000)) }) },
  );
  return fc.oneof(
    { weight: 8, arbitrary: fc.tuple(object, extras).map(([o, e]) => toText(mergeExtras(o, e))) },
    { weight: 2, arbitrary: withOneEmbedded(doc, s) },
    { weight: 1, arbitrary: fc.constantFrom('', '{', 'null', '[]', '"x"', deepArray(100_000)) },
  );
}

/** What an otherwise valid string field may carry that cannot be stored exactly. */
const EMBEDDED = ['\u0000', '\uD800', '\uDFFF'];
const IMPOSSIBLE_DATE_TIMES = HOSTILE_STRINGS.filter((v) => /^\d{4}-\d{2}-\d{2}T/.test(v));
const IMPOSSIBLE_DATES = HOSTILE_STRINGS.filter((v) => /^\d{4}-\d{2}-\d{2}$/.test(v));

/**
 * A valid value with exactly one of its strings (a field, an array item, a
 * payload value or key) made hostile: a NUL or a lone surrogate in it, or, for
 * a date or date-time, an impossible or out-of-range one. Nothing else is
 * wrong with the request, so only the edge's rule stands between it and the
 * database (the fuzz must fail when such a rule is removed).
 */
function withOneEmbedded(doc: Doc, schema: Schema): fc.Arbitrary<string> {
  return fc
    .tuple(validValue(doc, schema), fc.nat(), fc.constantFrom(...EMBEDDED), fc.boolean(), fc.boolean())
    .map(([value, pick, bad, keys, padded]) => {
      // The string leaves (and, when `keys`, the keys of objects), each with its schema and a way to change it in place.
      const leaves: Array<{ text: string; schema?: Schema; change: (next: string) => void }> = [];
      let root = value;
      const collect = (v: unknown, at: Schema | undefined, set: (next: string) => void): void => {
        const s = at ? deref(doc, at) : undefined;
        if (typeof v === 'string') leaves.push({ text: v, schema: s, change: set });
        else if (Array.isArray(v)) v.forEach((x, i) => collect(x, s?.items, (n) => (v[i] = n)));
        else if (typeof v === 'object' && v !== null) {
          const record = v as Record<string, unknown>;
          for (const k of Object.keys(record)) {
            collect(record[k], s?.properties?.[k], (n) => (record[k] = n));
            if (keys) {
              leaves.push({
                text: k,
                change: (n) => {
                  record[n] = record[k];
                  delete record[k];
                },
              });
            }
          }
        }
      };
      collect(value, schema, (n) => (root = n));
      if (leaves.length > 0) {
        const { text, schema: s, change } = leaves[pick % leaves.length];
        const freeText = s?.maxLength !== undefined && !s.pattern && !s.enum && !s.format;
        // A date or date-time becomes an impossible or out-of-range one; free text with a limit is sometimes padded
        // with variation selectors to one code point over it; any other string gets a NUL or a lone surrogate.
        if (/^\d{4}-\d{2}-\d{2}T/.test(text)) change(IMPOSSIBLE_DATE_TIMES[pick % IMPOSSIBLE_DATE_TIMES.length]);
        else if (/^\d{4}-\d{2}-\d{2}$/.test(text)) change(IMPOSSIBLE_DATES[pick % IMPOSSIBLE_DATES.length]);
        else if (freeText && padded) change(vsPadded(s.maxLength!));
        else change(`${text.slice(0, 1)}${bad}${text.slice(1)}`);
      }
      // JSON.stringify writes NUL and lone surrogates as \u escapes (well-formed JSON text).
      return JSON.stringify(root) ?? 'null';
    });
}

/** The extra keys, written as JSON text (an own `__proto__` key must not become the prototype here). */
function mergeExtras(o: Record<string, unknown>, extras: Record<string, unknown>): Json {
  const parts = [...Object.entries(o), ...Object.entries(extras)].map(([k, v]) => `${JSON.stringify(k)}:${toText(v)}`);
  return rawJson(`{${parts.join(',')}}`);
}

/** A path segment: encoded normally, or broken on purpose. */
function segmentFor(doc: Doc, schema: Schema): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: validValue(doc, schema).map((v) => encodeSegment(String(v))) },
    { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_STRINGS).map(encodeSegment) },
    { weight: 1, arbitrary: fc.constantFrom('%E0%A4%A', '%', '%ZZ', '%00', '%ED%A0%80', '..', 'a'.repeat(5_000)) },
  );
}

function encodeSegment(v: string): string {
  try {
    return encodeURIComponent(v) || '%20';
  } catch {
    return '%ED%A0%80'; // a lone surrogate as its (invalid) UTF-8 bytes
  }
}

function queryFor(doc: Doc, params: Parameter[]): fc.Arbitrary<string> {
  const pairs = params.map((p) =>
    fc.option(
      fc.oneof(
        {
          weight: 3,
          arbitrary: fuzzedValue(doc, p.schema ?? {}).map(
            (v) => `${encodeURIComponent(p.name)}=${encodeSegment(isRaw(v) ? v.text : String(v))}`,
          ),
        },
        { weight: 1, arbitrary: fc.constantFrom('%00', '%ED%A0%80', '%E0%A4%A').map((raw) => `${p.name}=${raw}`) },
      ),
      { nil: undefined, freq: 2 },
    ),
  );
  const extra = fc.oneof(
    { weight: 10, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__=1', 'constructor[prototype][x]=1', 'unknown=1', `${'k'.repeat(3_000)}=1`) },
  );
  return fc.tuple(fc.tuple(...pairs), extra).map(([ps, e]) => [...ps, e].filter((x): x is string => x !== undefined).join('&'));
}

function requestFor(doc: Doc, method: string, template: string, op: Operation): fc.Arbitrary<FuzzRequest> {
  const params = (op.parameters ?? []).filter((p) => !p.$ref);
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const path = fc
    .tuple(...pathParams.map((p) => segmentFor(doc, p.schema ?? {})))
    .map((segments) => pathParams.reduce((acc, p, i) => acc.replace(`{${p.name}}`, segments[i]), template));
  const bodySchema = op.requestBody?.content['application/json']?.schema;
  const body = bodySchema ? bodyFor(doc, bodySchema).map((b): string | undefined => b) : fc.constant(undefined);
  // fast-check's `freq`: one in `freq` is the nil value, so these options are mostly absent.
  const encoding = fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom('gzip', 'br', 'deflate', 'identity', 'x-unknown') },
  );
  return fc
    .record({ path, query: queryFor(doc, queryParams), body, encoding })
    .map(({ path: p, query, body: b, encoding: e }) => ({ method: method.toUpperCase(), path: p, query, body: b, encoding: e }));
}

// --- One hostile class at a time ---------------------------------------------------

/**
 * The classes the edge answers with a rule of its own, each sent alone in an
 * otherwise valid request (the operation's documented example), so that the
 * only thing between it and the services is that rule.
 */
type HostileClass = 'nul' | 'date' | 'prototype' | 'encoding';

/** What the edge must answer when the class is the request's only fault. */
type Expected = { status: 400; code: ErrorCode; path: string } | { status: 415; code: ErrorCode };

/** One place in one operation's example request where one class goes; `variant` (fast-check's pick) chooses how. */
interface HostileCase {
  label: string;
  hostile: HostileClass;
  build: (variant: number) => { request: FuzzRequest; expected: Expected; what: string };
}

/** Answered status and, for an error, its envelope (already checked against D-1/D-2 by `send`). */
/** The single sign-on routes a browser navigates to (D-41): they answer redirects and HTML pages. */
const isNavigation = (where: string): boolean => /^GET \/auth\/oidc\/\{[^}]+\}\/(start|callback)$/.test(where);

interface Answer {
  status: number;
  error?: { code: string; message: string; details?: Array<{ path: string; issue: string }> };
  context: string;
}

/** Impossible or out-of-range date-times: no day 30 February, no 24:00 or leap second, no year 0000, offsets within ±14:00, years up to 9999 after the offset. */
const BAD_DATE_TIMES = [
  '2026-02-30T10:00:00Z',
  '2025-02-29T10:00:00Z',
  '2026-04-31T10:00:00+02:00',
  '2026-05-01T24:00:00Z',
  '2026-05-01T23:60:00Z',
  '2026-05-01T23:59:60Z',
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00+14:00',
  '2026-05-01T10:00:00+14:30',
  '2026-05-01T10:00:00-23:59',
  '2026-05-01T10:00:00+15:00',
  '9999-12-31T23:59:59Z',
  '9999-12-31T10:00:00-14:00',
];
/** Impossible or out-of-range calendar dates (the accepted range is 0001-01-02 – 9999-12-30). */
const BAD_DATES = ['2026-02-30', '2025-02-29', '2026-04-31', '2026-06-31', '0000-01-01', '0001-01-01', '9999-12-31'];

const DATE_TIME_TEXT = /^\d{4}-\d{2}-\d{2}T/;
const DATE_TEXT = /^\d{4}-\d{2}-\d{2}$/;

/** A key as the edge names it in a path (control characters escaped, as `printable` in libs/contracts input-safety). */
const shownKey = (key: string): string => key.split('\u0000').join('\\u0000');
const childPath = (parent: string, key: string | number): string =>
  typeof key === 'number' ? `${parent}[${key}]` : parent === '' ? shownKey(key) : `${parent}.${shownKey(key)}`;

/** `text` with a NUL at a place `variant` picks: before, inside, after, or NUL alone. */
function withNul(text: string, variant: number): string {
  const places = text.length + 2;
  const at = variant % places;
  if (at === text.length + 1) return '\u0000';
  return `${text.slice(0, at)}\u0000${text.slice(at)}`;
}

/** An own `__proto__` data property (as `JSON.parse` makes one), so that JSON.stringify writes it. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const POISON: Array<{ key: string; value: unknown }> = [
  { key: '__proto__', value: { polluted: true } },
  { key: '__proto__', value: { toString: 'x', isAdmin: true } },
  { key: 'constructor', value: { prototype: { polluted: true } } },
];

const ENCODINGS = ['gzip', 'deflate', 'br', 'x-unknown', 'gzip, identity', 'compress'];

/** A parameter's documented example, else its schema's example, default or first enum value. */
function parameterExample(doc: Doc, p: Parameter): string | undefined {
  const s = p.schema ? deref(doc, p.schema) : {};
  const own = s as Schema & { examples?: unknown[]; default?: unknown };
  const value = p.example ?? own.examples?.[0] ?? own.default ?? own.enum?.find((v) => v !== null);
  return value === undefined || value === null
    ? undefined
    : typeof value === 'object'
      ? JSON.stringify(value)
      : `${value as string | number | boolean}`;
}

/** A value of a date or date-time parameter that has no example (a day ago: valid, realistic). */
const validDateFor = (s: Schema): string | undefined => {
  const day = new Date(Date.now() - 86_400_000).toISOString();
  if (s.format === 'date-time') return day;
  if (s.format === 'date') return day.slice(0, 10);
  return undefined;
};

/** The operation's documented request bodies (one per named example). */
function bodyExamples(op: Operation): Array<{ name: string; value: unknown }> {
  const media = op.requestBody?.content['application/json'];
  if (!media) return [];
  if (media.example !== undefined) return [{ name: 'example', value: media.example }];
  return Object.entries(media.examples ?? {}).map(([name, e]) => ({ name, value: e.value }));
}

/**
 * Every (place, class) of one operation, generic over the document: the
 * example request with, in turn, a NUL in each string value, in each key of a
 * free-form object (a payload) and in each string parameter; an impossible
 * date in each date or date-time (body or query); a prototype key in each
 * object of the body and in the query; an encoded body.
 */
function hostileCases(doc: Doc, method: string, template: string, op: Operation): { example: FuzzRequest; cases: HostileCase[] } {
  const params = (op.parameters ?? []).filter((p) => !p.$ref);
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  // Webhook bodies are verified byte for byte and parsed by the connectors service, not at the edge.
  const hook = template.startsWith('/hooks/');
  const pathValues = Object.fromEntries(pathParams.map((p) => [p.name, parameterExample(doc, p) ?? randomUUID()]));
  const requiredQuery = queryParams.filter((p) => p.required && parameterExample(doc, p) !== undefined);
  const base = (
    body: unknown,
    change: { path?: Record<string, string>; query?: Array<[string, string]>; encoding?: string; rawBody?: string } = {},
  ): FuzzRequest => {
    const segments = { ...pathValues, ...change.path };
    const path = pathParams.reduce((acc, p) => acc.replace(`{${p.name}}`, encodeSegment(segments[p.name])), template);
    const query = new Map<string, string>(requiredQuery.map((p) => [p.name, parameterExample(doc, p)!]));
    for (const [k, v] of change.query ?? []) query.set(k, v);
    return {
      method: method.toUpperCase(),
      path,
      query: [...query.entries()].map(([k, v]) => `${encodeURIComponent(k)}=${encodeSegment(v)}`).join('&'),
      body: change.rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
      encoding: change.encoding,
    };
  };
  const bodySchema = op.requestBody?.content['application/json']?.schema;
  const examples = bodyExamples(op);
  const firstBody = examples[0]?.value;
  const cases: HostileCase[] = [];
  const refused = (path: string): Expected => ({ status: 400, code: ErrorCode.VALIDATION_FAILED, path });

  for (const { name, value } of hook ? [] : examples) {
    // Each place in the example body: a string (with its schema), a free-form object, any object.
    const places: Array<{ kind: 'string' | 'object'; path: string; schema?: Schema; freeForm: boolean; route: Array<string | number> }> =
      [];
    const walk = (v: unknown, schema: Schema | undefined, path: string, route: Array<string | number>): void => {
      const s = schema ? deref(doc, schema) : undefined;
      if (typeof v === 'string') places.push({ kind: 'string', path, schema: s, freeForm: false, route });
      else if (Array.isArray(v)) v.forEach((x, i) => walk(x, s?.items, childPath(path, i), [...route, i]));
      else if (typeof v === 'object' && v !== null) {
        const variants = s?.anyOf ?? s?.oneOf;
        const freeForm = !s || (!s.properties && !variants) || (typeof s.additionalProperties === 'object' && !s.properties);
        places.push({ kind: 'object', path, schema: s, freeForm, route });
        for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
          const child = s?.properties?.[k] ?? (typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined);
          walk(x, child, childPath(path, k), [...route, k]);
        }
      }
    };
    walk(value, bodySchema, '', []);
    const clone = (): unknown => JSON.parse(JSON.stringify(value)) as unknown;
    for (const place of places) {
      const where = `body ${name} ${place.path || '(root)'}`;
      if (place.kind === 'string') {
        const original = at(value, place.route) as string;
        const replace = (next: string): unknown => {
          if (place.route.length === 0) return next;
          const root = clone();
          const parent = at(root, place.route.slice(0, -1)) as Record<string | number, unknown>;
          parent[place.route[place.route.length - 1]] = next;
          return root;
        };
        cases.push({
          label: `NUL in ${where}`,
          hostile: 'nul',
          build: (variant) => {
            const bad = withNul(original, variant);
            return { request: base(replace(bad)), expected: refused(place.path), what: JSON.stringify(bad) };
          },
        });
        const dateTime = place.schema?.format === 'date-time' || DATE_TIME_TEXT.test(original);
        const date = place.schema?.format === 'date' || DATE_TEXT.test(original);
        if (dateTime || date) {
          const list = dateTime ? BAD_DATE_TIMES : BAD_DATES;
          cases.push({
            label: `impossible ${dateTime ? 'date-time' : 'date'} in ${where}`,
            hostile: 'date',
            build: (variant) => {
              const bad = list[variant % list.length];
              return { request: base(replace(bad)), expected: refused(place.path), what: bad };
            },
          });
        }
      } else {
        if (place.freeForm) {
          // A payload: NUL in one of its keys (an existing one, or a new key), and in a value under a new key.
          cases.push({
            label: `NUL in a key of ${where}`,
            hostile: 'nul',
            build: (variant) => {
              const root = clone();
              const target = at(root, place.route) as Record<string, unknown>;
              const keys = Object.keys(target);
              const old = keys.length > 0 && variant % 2 === 0 ? keys[variant % keys.length] : 'note';
              const bad = withNul(old, variant >> 1);
              const v = old in target ? target[old] : 'text';
              delete target[old];
              target[bad] = v;
              return { request: base(root), expected: refused(childPath(place.path, bad)), what: JSON.stringify(bad) };
            },
          });
          cases.push({
            label: `NUL in a new value of ${where}`,
            hostile: 'nul',
            build: (variant) => {
              const root = clone();
              const bad = withNul('a realistic note', variant);
              (at(root, place.route) as Record<string, unknown>).note = bad;
              return { request: base(root), expected: refused(childPath(place.path, 'note')), what: JSON.stringify(bad) };
            },
          });
        }
        cases.push({
          label: `prototype key in ${where}`,
          hostile: 'prototype',
          build: (variant) => {
            const root = clone();
            const { key, value: poison } = POISON[variant % POISON.length];
            setOwn(at(root, place.route) as Record<string, unknown>, key, poison);
            return {
              request: base(root),
              expected: { status: 400, code: ErrorCode.PROTOTYPE_POISONING, path: childPath(place.path, key) },
              what: `${key}: ${JSON.stringify(poison)}`,
            };
          },
        });
      }
    }
  }

  for (const p of pathParams) {
    cases.push({
      label: `NUL in path parameter ${p.name}`,
      hostile: 'nul',
      build: (variant) => {
        const bad = withNul(pathValues[p.name], variant);
        return { request: base(firstBody, { path: { [p.name]: bad } }), expected: refused(p.name), what: JSON.stringify(bad) };
      },
    });
  }
  for (const p of queryParams) {
    const s = p.schema ? deref(doc, p.schema) : {};
    if (!typesOf(s).includes('string') && !s.enum) continue;
    const example = parameterExample(doc, p) ?? validDateFor(s) ?? 'a';
    cases.push({
      label: `NUL in query parameter ${p.name}`,
      hostile: 'nul',
      build: (variant) => {
        const bad = withNul(example, variant);
        return { request: base(firstBody, { query: [[p.name, bad]] }), expected: refused(p.name), what: JSON.stringify(bad) };
      },
    });
    const dateTime = s.format === 'date-time' || DATE_TIME_TEXT.test(example);
    const date = s.format === 'date' || DATE_TEXT.test(example);
    if (dateTime || date) {
      const list = dateTime ? BAD_DATE_TIMES : BAD_DATES;
      cases.push({
        label: `impossible ${dateTime ? 'date-time' : 'date'} in query parameter ${p.name}`,
        hostile: 'date',
        build: (variant) => {
          const bad = list[variant % list.length];
          return { request: base(firstBody, { query: [[p.name, bad]] }), expected: refused(p.name), what: bad };
        },
      });
    }
  }
  cases.push({
    label: 'prototype key in the query',
    hostile: 'prototype',
    build: (variant) => {
      const value = ['true', '{}', '1', ''][variant % 4];
      return {
        request: base(firstBody, { query: [['__proto__', value]] }),
        expected: { status: 400, code: ErrorCode.PROTOTYPE_POISONING, path: '__proto__' },
        what: `__proto__=${value}`,
      };
    },
  });
  if (op.requestBody) {
    const raw = firstBody === undefined ? '{}' : JSON.stringify(firstBody);
    cases.push({
      label: 'an encoded body',
      hostile: 'encoding',
      build: (variant) => {
        const encoding = ENCODINGS[variant % ENCODINGS.length];
        return {
          request: base(firstBody, { encoding, rawBody: raw }),
          expected: { status: 415, code: ErrorCode.UNSUPPORTED_MEDIA_TYPE },
          what: encoding,
        };
      },
    });
  }
  return { example: base(firstBody), cases };
}

/** The value at `route` inside `root`. */
const at = (root: unknown, route: Array<string | number>): unknown =>
  route.reduce<unknown>((acc, k) => (acc as Record<string | number, unknown>)[k], root);

// --- The stack ---------------------------------------------------------------------------------

describe('the OpenAPI-driven fuzz stage', () => {
  const apps: AppProcess[] = [];
  let gateway: AppProcess;
  let member: MemberWithToken;
  let doc: Doc;
  const codes = new Set<string>(Object.values(ErrorCode));
  /** Ids the API answered a write with: the only ones that may be stored. */
  const accepted = {
    events: new Set<string>(),
    usage: new Set<string>(),
    sessions: new Set<string>(),
    connectors: new Set<string>(),
    tokens: new Set<string>(),
  };
  let sent = 0;
  const statuses = new Map<number, number>();

  beforeAll(async () => {
    process.stdout.write(`[fuzz] seed ${SEED}, ${RUNS} requests per operation (replay: FUZZ_SEED=${SEED})\n`);
    // Every service: the documented GET /status asks each of them.
    apps.push(...(await Promise.all(SERVICE_NAMES.map((a) => startAppProcess(a, {}, 150_000)))));
    // The webhooks refuse every fuzzed delivery (no signature): the per-address limit of such failures must not end the run.
    gateway = await startAppProcess(
      'gateway',
      { REQUEST_TIMEOUT_MS: '15000', RATE_LIMIT_PER_MINUTE: '1000000', UNAUTH_RATE_LIMIT_PER_MINUTE: '1000000' },
      150_000,
    );
    apps.push(gateway);
    member = memberWithToken({ workspace: `fuzz-${randomUUID().slice(0, 8)}`, email: `fuzz-${randomUUID().slice(0, 8)}@example.com` });
    doc = parse(await (await fetch(`${gateway.url}/openapi.yaml`)).text()) as Doc;
    for (const t of (await call<{ data: Array<{ token_id: string }> }>(gateway.url, 'GET', '/v1/tokens', { token: member.token })).body
      .data) {
      accepted.tokens.add(t.token_id);
    }
  }, 300_000);

  afterAll(async () => {
    await Promise.all(apps.map((p) => p.stop()));
  });

  async function send(r: FuzzRequest, op: Operation, where: string): Promise<Answer> {
    // The provider webhooks and operator routes are outside the /v1 server (their path items have servers of their own).
    const item = doc.paths[where.slice(where.indexOf(' ') + 1)] as unknown as { servers?: unknown[] };
    const url = `${gateway.url}${item.servers ? '' : '/v1'}${r.path}${r.query ? `?${r.query}` : ''}`;
    const headers: Record<string, string> = { authorization: `Bearer ${member.token}` };
    let body: Buffer | undefined;
    if (r.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = Buffer.from(r.body, 'utf8');
      if (r.encoding) {
        headers['content-encoding'] = r.encoding;
        if (r.encoding === 'gzip') body = gzipSync(body);
        if (r.encoding === 'deflate') body = deflateSync(body);
        if (r.encoding === 'br') body = brotliCompressSync(body);
      }
    }
    const res = await fetch(url, { method: r.method, headers, body });
    sent++;
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    const text = await res.text();
    const documented = Object.keys(op.responses);
    const context = `${where}: ${r.method} ${url.slice(0, 300)} body=${(r.body ?? '').slice(0, 300)} encoding=${r.encoding ?? ''} → ${res.status} ${text.slice(0, 400)}`;
    if (res.status >= 500) throw new Error(`5xx: ${context}`);
    if (!res.headers.get('x-request-id')) throw new Error(`no x-request-id: ${context}`);
    if (!documented.includes(String(res.status)))
      throw new Error(`undocumented status ${res.status} (documented: ${documented.join(', ')}): ${context}`);
    if (res.status >= 400 && isNavigation(where) && (res.headers.get('content-type') ?? '').startsWith('text/html')) {
      // D-41: a single sign-on navigation the identity service refuses is a page that says why, never a stack
      // (what the edge refuses first is the D-1 envelope, below).
      if (/\bat \S+ \(|node_modules/.test(text)) throw new Error(`not a refusal page: ${context}`);
      return { status: res.status, context };
    }
    if (res.status >= 400) {
      const parsed = JSON.parse(text) as { error?: { code?: string; message?: unknown; details?: unknown } };
      const error = parsed.error;
      const envelope =
        Object.keys(parsed).length === 1 &&
        error !== undefined &&
        typeof error.message === 'string' &&
        typeof error.code === 'string' &&
        codes.has(error.code) &&
        httpStatusOf(error.code as ErrorCode) === res.status &&
        Object.keys(error).every((k) => ['code', 'message', 'details'].includes(k));
      if (!envelope) throw new Error(`not the D-1 envelope with a D-2 code of its status: ${context}`);
      return { status: res.status, error: error as Answer['error'], context };
    }
    recordAccepted(r, text);
    return { status: res.status, context };
  }

  function recordAccepted(r: FuzzRequest, text: string): void {
    if (r.method !== 'POST' || !text) return;
    const data = (JSON.parse(text) as { data?: Record<string, unknown> }).data ?? {};
    if (r.path === '/activity/events') for (const id of (data.event_ids as string[] | undefined) ?? []) accepted.events.add(id);
    if (r.path === '/usage') for (const id of (data.usage_ids as string[] | undefined) ?? []) accepted.usage.add(id);
    if (r.path === '/sessions' && typeof data.session_id === 'string') accepted.sessions.add(data.session_id);
    if (r.path === '/connectors' && typeof data.connector_id === 'string') accepted.connectors.add(data.connector_id);
    // A connector acts through a report_only token of its own, listed among the member's tokens (D-36).
    if (r.path === '/connectors' && typeof data.credential_token_id === 'string') accepted.tokens.add(data.credential_token_id);
    if (r.path === '/tokens' && typeof data.token_id === 'string') accepted.tokens.add(data.token_id);
    // Any other accepted write that answers with an id (a tool call over MCP starting a session, its reply
    // nested as text): anywhere in the reply, escaped or not.
    for (const [, ids] of text.matchAll(/usage_ids\\?"\s*:\s*\[([^\]]*)\]/g)) {
      for (const [id] of ids.matchAll(/[0-9a-f]{8}-[0-9a-f-]{27}/g)) accepted.usage.add(id);
    }
    for (const [, key, id] of text.matchAll(/(session_id|connector_id|token_id|credential_token_id)\\?"\s*:\s*\\?"([0-9a-f-]{36})/g)) {
      accepted[key === 'session_id' ? 'sessions' : key === 'connector_id' ? 'connectors' : 'tokens'].add(id);
    }
  }

  it('answers every generated request within the contract: no 5xx, documented statuses, D-1 envelopes, request ids', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({ method: m, path, op: item[m] })),
    );
    expect(operations.length).toBeGreaterThan(10);
    const started = Date.now();
    for (const [i, { method, path, op }] of operations.entries()) {
      const where = `${method.toUpperCase()} ${path}`;
      await fc.assert(
        fc.asyncProperty(requestFor(doc, method, path, op), async (r) => {
          await send(r, op, where);
        }),
        { seed: SEED + i, numRuns: RUNS, endOnFailure: true, verbose: 0 },
      );
    }
    const histogram = [...statuses.entries()].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`);
    process.stdout.write(
      `[fuzz] ${sent} requests over ${operations.length} operations in ${Date.now() - started} ms (seed ${SEED}): ${histogram.join(' ')}\n`,
    );
    // Not only refusals: the generator also reaches the handlers.
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
  }, 600_000);

  it('answers each hostile class alone, in every place of every operation, with the edge rule for it', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({ method: m, path, op: item[m] })),
    );
    const started = Date.now();
    const perClass = new Map<HostileClass, number>();
    let cases = 0;
    for (const [i, { method, path, op }] of operations.entries()) {
      const where = `${method.toUpperCase()} ${path}`;
      // Browser navigations answer refusal pages, not envelopes with codes: the single sign-on e2e checks each refusal.
      if (isNavigation(where)) continue;
      const { example, cases: all } = hostileCases(doc, method, path, op);
      if (all.length === 0) continue;
      cases += all.length;
      // The example as documented: what the request would be answered without the hostile class.
      const baseline = await send(example, op, where);
      // Refused before any input is looked at (an operator route, a webhook without signature): that is another fault.
      const otherFault = baseline.status === 401 || baseline.status === 403;
      await fc.assert(
        fc.asyncProperty(fc.nat(all.length - 1), fc.nat(1_000), async (index, variant) => {
          const c = all[index];
          const { request, expected, what } = c.build(variant);
          perClass.set(c.hostile, (perClass.get(c.hostile) ?? 0) + 1);
          // A contract failure (a 5xx, an undocumented status) names the case too.
          const answer = await send(request, op, where).catch((e: Error) => {
            throw new Error(`${c.label} (${what}): ${e.message}`);
          });
          const specific =
            answer.status === expected.status &&
            answer.error?.code === expected.code &&
            (!('path' in expected) || (answer.error.details ?? []).some((d) => d.path === expected.path));
          if (!specific && !(otherFault && answer.status === baseline.status)) {
            const wanted =
              'path' in expected ? `${expected.status} ${expected.code} naming ${expected.path}` : `${expected.status} ${expected.code}`;
            throw new Error(`${c.label} (${what}): wanted ${wanted}; got ${answer.context}`);
          }
        }),
        // Every (place, class) once with its own variant, then as many again at random.
        {
          seed: SEED + 1_000 + i,
          numRuns: all.length * 2,
          examples: all.map((_, k): [number, number] => [k, k]),
          endOnFailure: true,
          verbose: 0,
        },
      );
    }
    const classes = [...perClass.entries()].map(([k, n]) => `${k}×${n}`).join(' ');
    process.stdout.write(
      `[fuzz] one class at a time: ${cases} places over ${operations.length} operations, ${classes} in ${Date.now() - started} ms\n`,
    );
    expect(perClass.size).toBe(4);
  }, 600_000);

  it('D-2, D-37: every operation answers generic probes only with statuses its document lists (no credential, a malformed one, a non-JSON, broken or encoded body, oversize headers)', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((m) => ({ method: m, path, op: item[m] })),
    );
    const undocumented: string[] = [];
    const observed = new Map<string, Set<number>>();
    for (const { method, path, op } of operations) {
      const where = `${method.toUpperCase()} ${path}`;
      const { example } = hostileCases(doc, method, path, op);
      const item = doc.paths[path] as unknown as { servers?: unknown[] };
      const url = `${gateway.url}${item.servers ? '' : '/v1'}${example.path}${example.query ? `?${example.query}` : ''}`;
      const auth = { authorization: `Bearer ${member.token}` };
      const probes: Array<[string, Record<string, string>, Buffer | string | undefined]> = [
        ['no credential', {}, undefined],
        ['a malformed credential', { authorization: 'Bearer wt_not-a-token' }, undefined],
        ['a non-JSON body', { ...auth, 'content-type': 'text/plain' }, 'x'],
        ['broken JSON', { ...auth, 'content-type': 'application/json' }, '{'],
        ['a gzip body', { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzipSync('{}')],
        ['oversize headers', { ...auth, 'x-padding': 'a'.repeat(20_000) }, undefined],
      ];
      for (const [what, headers, body] of probes) {
        // node:http, not fetch: a GET with a body is a request a client can send.
        const status = await new Promise<number>((resolve, reject) => {
          const framed = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
          const req = request(url, { method: method.toUpperCase(), headers: framed }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          });
          req.on('error', reject);
          req.end(body);
        });
        if (status >= 500) throw new Error(`${where} with ${what}: ${status}`);
        observed.set(where, (observed.get(where) ?? new Set()).add(status));
        if (!Object.keys(op.responses).includes(String(status))) undocumented.push(`${where} with ${what}: ${status}`);
      }
    }
    expect(undocumented).toEqual([]);
    // The probes reached the edge rules they aim at, not only the credential check.
    const all = new Set([...observed.values()].flatMap((s) => [...s]));
    for (const status of [401, 415, 431]) expect([status, all.has(status)]).toEqual([status, true]);
  }, 300_000);

  /** Every id of a listing, following cursors. */
  async function listIds(path: string, field: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const res: Reply<Page> = await call<Page>(
        gateway.url,
        'GET',
        `${path}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`,
        { token: member.token },
      );
      expect(res.status).toBe(200);
      ids.push(...res.body.data.map((d) => d[field]));
      cursor = res.body.meta?.cursor ?? null;
    } while (cursor);
    return ids;
  }

  it('stored nothing a refused request sent: every stored id was answered to an accepted request', async () => {
    const stored = {
      events: await listIds('/v1/activity/events?limit=100', 'event_id'),
      usage: await listIds('/v1/usage?limit=100', 'usage_id'),
      sessions: await listIds('/v1/sessions?limit=100', 'session_id'),
      connectors: await listIds('/v1/connectors', 'connector_id'),
      tokens: await listIds('/v1/tokens', 'token_id'),
    };
    for (const [kind, ids] of Object.entries(stored) as Array<[keyof typeof accepted, string[]]>) {
      expect({ kind, unexplained: ids.filter((id) => !accepted[kind].has(id)) }).toEqual({ kind, unexplained: [] });
    }
  });

  it('no service logged an internal error', () => {
    for (const p of apps) {
      const internal = p
        .output()
        .split('\n')
        .filter((l) => l.includes('"msg":"internal error"') || l.includes('"msg":"command failed"'));
      expect({ app: p.app, internal: internal.slice(0, 3) }).toEqual({ app: p.app, internal: [] });
    }
  });
});
