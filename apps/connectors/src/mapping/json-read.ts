import { findSecrets, MAX_FUTURE_SKEW_MS, RFC3339_PATTERN } from '@worktrack/contracts';
import { MappingOutcome } from './mapped-event';

/**
 * Small readers for provider bodies that arrive as `unknown` JSON. The lenient
 * readers (`obj`, `str`, …) return `undefined` for a missing or mistyped
 * value; the `need*` readers throw `MalformedBody` naming the field, which
 * `guardMalformed` turns into a `{ kind: 'invalid' }` outcome.
 */
export type JsonObject = Record<string, unknown>;

export const obj = (x: unknown): JsonObject | undefined =>
  x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as JsonObject) : undefined;
export const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
export const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
export const bool = (x: unknown): boolean | undefined => (typeof x === 'boolean' ? x : undefined);
export const arr = (x: unknown): unknown[] | undefined => (Array.isArray(x) ? x : undefined);

/** The body does not have the shape the provider documents; the message names the field. */
export class MalformedBody extends Error {}

export function needObj(x: unknown, path: string): JsonObject {
  const value = obj(x);
  if (value === undefined) throw new MalformedBody(`${path} is missing or not an object`);
  return value;
}

export function needStr(x: unknown, path: string): string {
  const value = str(x);
  if (value === undefined || value === '') throw new MalformedBody(`${path} is missing or not a string`);
  return value;
}

/** Runs a mapping, turning a `MalformedBody` into the `invalid` outcome; anything else propagates. */
export function guardMalformed<T>(map: () => T): T | MappingOutcome {
  try {
    return map();
  } catch (e) {
    if (e instanceof MalformedBody) return { kind: 'invalid', reason: e.message };
    throw e;
  }
}

const UNIX_SECONDS = /^\d{1,12}(\.\d+)?$/;

/**
 * A provider timestamp: unix seconds (a number, or a string such as Slack's
 * `"1715677331.000200"`) or an RFC 3339 string with an offset. `null` or
 * absent is `undefined`; anything else is malformed.
 */
export function readTime(x: unknown, path: string): Date | undefined {
  if (x === undefined || x === null) return undefined;
  let ms: number | undefined;
  if (typeof x === 'number' && Number.isFinite(x) && x >= 0) ms = Math.floor(x * 1000);
  else if (typeof x === 'string' && UNIX_SECONDS.test(x)) ms = Math.floor(Number(x) * 1000);
  else if (typeof x === 'string' && RFC3339_PATTERN.test(x)) ms = Date.parse(x);
  const date = ms === undefined ? undefined : new Date(ms);
  if (date === undefined || Number.isNaN(date.getTime())) throw new MalformedBody(`${path} is not a timestamp`);
  return date;
}

/** The first present timestamp among `candidates`, read in order (each must be well-formed when present). */
export function firstTime(candidates: Array<[unknown, string]>): Date | undefined {
  for (const [value, path] of candidates) {
    const date = readTime(value, path);
    if (date !== undefined) return date;
  }
  return undefined;
}

/**
 * `occurredAt` in RFC 3339 UTC with milliseconds. A provider clock more than
 * 10 minutes ahead of receipt would be refused by ingestion (D-19), so such a
 * time — and a missing one — becomes the receipt time.
 */
export function occurredAtFor(at: Date | undefined, receivedAt: Date): string {
  if (at === undefined || at.getTime() - receivedAt.getTime() > MAX_FUTURE_SKEW_MS) return receivedAt.toISOString();
  return at.toISOString();
}

/** Whole seconds from `from` to `to`, or null when either is unknown. */
export function secondsBetween(from: Date | undefined, to: Date | undefined): number | null {
  if (from === undefined || to === undefined) return null;
  return Math.max(0, Math.round((to.getTime() - from.getTime()) / 1000));
}

/**
 * A last line of defence for D-18/D-36: a top-level value that looks like a
 * secret (say, a token pasted into a pull request title) becomes null, so the
 * event is still recorded instead of the whole delivery being refused.
 */
export function withoutSecrets(payload: JsonObject): JsonObject {
  const entries = Object.entries(payload).map(([key, value]) => [key, findSecrets(value).length > 0 ? null : value]);
  return Object.fromEntries(entries) as JsonObject;
}
