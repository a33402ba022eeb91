/**
 * ADR 0011: the bounded form of a verified GitHub delivery too
 * large to forward as received (GitHub sends up to 25 MB; the command topic
 * takes 4 MiB). The shape is GitHub's own — same keys, so the connectors'
 * mapper reads it as it reads any delivery — with:
 *
 * - every commit kept (GitHub lists at most 2048; more are cut to 2048), so
 *   commit counts stay exact, and `head_commit` kept;
 * - strings cut to a length and other arrays (file lists, labels…) to a count;
 * - progressively tighter cuts until the JSON fits `maxBytes`.
 *
 * Returns undefined when even the tightest form does not fit (the caller
 * answers 413), or when the body is not a JSON object.
 */
const MAX_COMMITS = 2048;
const LEVELS: ReadonlyArray<{ maxString: number; maxArray: number }> = [
  { maxString: 1024, maxArray: 20 },
  { maxString: 256, maxArray: 5 },
  { maxString: 64, maxArray: 0 },
];

export interface ReducedDelivery {
  json: string;
  /** Strings and array entries left out. */
  cut: number;
}

export function reduceGithubDelivery(body: unknown, maxBytes: number): ReducedDelivery | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  for (const level of LEVELS) {
    const counter = { cut: 0 };
    const reduced = shrink(body, level, counter, 0, true);
    const json = JSON.stringify(reduced);
    if (Buffer.byteLength(json, 'utf8') <= maxBytes) return { json, cut: counter.cut };
  }
  return undefined;
}

const MAX_DEPTH = 32;

function shrink(
  value: unknown,
  level: { maxString: number; maxArray: number },
  counter: { cut: number },
  depth: number,
  top = false,
): unknown {
  if (typeof value === 'string') {
    if (value.length <= level.maxString) return value;
    counter.cut += 1;
    // Never split a surrogate pair.
    const end = /[\uD800-\uDBFF]/.test(value[level.maxString - 1] ?? '') ? level.maxString - 1 : level.maxString;
    return value.slice(0, end);
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) {
    counter.cut += 1;
    return null;
  }
  if (Array.isArray(value)) {
    const keep = value.slice(0, level.maxArray);
    counter.cut += value.length - keep.length;
    return keep.map((v) => shrink(v, level, counter, depth + 1));
  }
  // No prototype: a "__proto__" key from the body stays a plain key.
  const out = Object.create(null) as Record<string, unknown>;
  for (const [key, v] of Object.entries(value)) {
    if (top && key === 'commits' && Array.isArray(v)) {
      const commits = v.slice(0, MAX_COMMITS);
      counter.cut += v.length - commits.length;
      out[key] = commits.map((c) => shrink(c, level, counter, depth + 1));
    } else {
      out[key] = shrink(v, level, counter, depth + 1);
    }
  }
  return out;
}
