/**
 * Whether `Accept-Encoding` takes gzip: gzip named with a weight above zero,
 * or, when gzip is not named, `*` with a weight above zero (RFC 9110 §12.5.3).
 */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  const weights = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    weights.set(coding.trim(), q === undefined ? 1 : Number(q));
  }
  const gzip = weights.get('gzip') ?? weights.get('x-gzip') ?? weights.get('*');
  return gzip !== undefined && gzip > 0;
}
