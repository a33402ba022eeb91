import { ValidateBy, type ValidationOptions } from 'class-validator';
import type { ErrorDetail } from './error-codes';

/**
 * Input every route refuses, whatever its fields. One rule for all
 * of them: refuse with a field path, never store something else than what
 * was sent.
 *
 * - NUL (U+0000) in a string or an object key: Postgres `text` and `jsonb`
 *   cannot hold it (the write fails), and stripping it would merge two
 *   client ids that differ only there.
 * - Lone UTF-16 surrogates: not Unicode text; the driver would turn them
 *   into U+FFFD on the way to Postgres, again merging distinct ids.
 * - Nesting deeper than MAX_JSON_DEPTH: recursive code downstream
 *   (validation, serialisation) would overflow its stack.
 * - `__proto__` keys, and `constructor` holding `prototype`: prototype
 *   poisoning once merged into an object.
 */

/** Deepest nesting of objects and arrays in a request body or message (the root object is depth 1). */
export const MAX_JSON_DEPTH = 64;

/** At most this many problems are named (the first ones found, in document order). */
const MAX_FINDINGS = 20;

export type UnsafeKind = 'text' | 'depth' | 'prototype';

export interface UnsafeInput extends ErrorDetail {
  kind: UnsafeKind;
}

const NUL = '\u0000';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Any surrogate at all: a plain class, far cheaper than LONE_SURROGATE's look-arounds, and false for almost all text. */
const ANY_SURROGATE = /[\uD800-\uDFFF]/;
/** A character `printable` escapes. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what it looks for
const UNPRINTABLE = /[\u0000-\u001f\u007f\uD800-\uDFFF]/;

/** Why `text` cannot be stored as sent, or undefined when it can. */
export function textIssue(text: string): string | undefined {
  if (text.includes(NUL)) return 'must not contain the NUL character (U+0000)';
  if (ANY_SURROGATE.test(text) && LONE_SURROGATE.test(text)) return 'must be valid Unicode text (it holds an unpaired UTF-16 surrogate)';
  return undefined;
}

/**
 * A key as it can be shown in a path: control characters and surrogates
 * escaped. Every key of every body goes through here, so a key with nothing
 * to escape is returned as it is (ADR 0012 decision 3).
 */
const printable = (key: string): string =>
  !UNPRINTABLE.test(key)
    ? key
    : Array.from(key, (c) =>
        c.length === 1 && (c <= '\u001f' || c === '\u007f' || (c >= '\uD800' && c <= '\uDFFF'))
          ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
          : c,
      ).join('');

const childPath = (parent: string, key: string | number): string =>
  typeof key === 'number' ? `${parent}[${key}]` : parent === '' ? printable(key) : `${parent}.${printable(key)}`;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Walks a parsed JSON value (iteratively: a hostile depth cannot overflow
 * this walk) and names what `textIssue`, the depth bound and the prototype
 * rule refuse. `root` prefixes every path (e.g. `query`). Empty when the
 * value is safe.
 */
export function findUnsafeInput(value: unknown, options: { maxDepth?: number; root?: string } = {}): UnsafeInput[] {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  if (!holdsUnsafeInput(value, maxDepth)) return [];
  const found: UnsafeInput[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: options.root ?? '', depth: 0 }];
  while (stack.length > 0 && found.length < MAX_FINDINGS) {
    const item = stack.pop()!;
    const { path, depth } = item;
    if (typeof item.value === 'string') {
      const issue = textIssue(item.value);
      if (issue) found.push({ kind: 'text', path, issue });
      continue;
    }
    if (typeof item.value !== 'object' || item.value === null) continue;
    if (depth + 1 > maxDepth) {
      found.push({ kind: 'depth', path, issue: `nesting is deeper than ${maxDepth} levels` });
      continue;
    }
    const children: Array<{ value: unknown; path: string; depth: number }> = [];
    if (Array.isArray(item.value)) {
      item.value.forEach((v, i) => children.push({ value: v, path: childPath(path, i), depth: depth + 1 }));
    } else {
      const record = item.value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const at = childPath(path, key);
        const keyProblem = textIssue(key);
        if (keyProblem) found.push({ kind: 'text', path: at, issue: `key ${keyProblem}` });
        if (key === '__proto__' || (key === 'constructor' && isRecord(record[key]) && Object.hasOwn(record[key], 'prototype'))) {
          found.push({ kind: 'prototype', path: at, issue: 'is a key that could alter object prototypes; rename it' });
          continue;
        }
        children.push({ value: record[key], path: at, depth: depth + 1 });
      }
    }
    // Reverse, so that the stack pops them in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return found;
}

/**
 * Whether `findUnsafeInput` would name anything: the same rules, walked
 * without a path or an entry per value (a body is almost always safe, and
 * building a path for each of its keys cost more than checking them; the
 * paths are built only for a value that holds a problem).
 */
function holdsUnsafeInput(value: unknown, maxDepth: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (typeof v === 'string') {
      if (textIssue(v)) return true;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > maxDepth) return true;
    if (Array.isArray(v)) {
      for (const child of v) {
        values.push(child);
        depths.push(depth + 1);
      }
      continue;
    }
    const record = v as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (textIssue(key)) return true;
      const child = record[key];
      if (key === '__proto__' || (key === 'constructor' && isRecord(child) && Object.hasOwn(child, 'prototype'))) return true;
      values.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}

/** Code points, as Postgres counts a `varchar(n)` or `char_length` (variation selectors included). */
export const codePointLength = (text: string): number => {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    n++;
  }
  return n;
};

/**
 * `@MaxLength` that counts the way the database does: code points, each
 * variation selector included (class-validator's check leaves U+FE0E and
 * U+FE0F out of the count, so a string could pass it and not fit its
 * column). Documented as `maxLength` (JSON Schema counts code points too).
 */
export function MaxCodePoints(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxCodePoints',
      constraints: [max],
      validator: {
        validate: (value: unknown) => typeof value === 'string' && codePointLength(value) <= max,
        defaultMessage: (args) => `${args?.property ?? 'value'} must be at most ${max} characters`,
      },
    },
    options,
  );
}
