import { findSecrets } from '@worktrack/contracts';

export const REDACTED = '[redacted]';

/**
 * D-36: connectors never store secrets. Mappers copy only metadata, but a
 * title or branch name can still hold a token someone pasted: such strings
 * are replaced (keys that look like secrets are dropped) instead of failing
 * the whole delivery with PAYLOAD_CONTAINS_SECRET (D-18).
 */
export function redactSecrets(payload: Record<string, unknown>): { payload: Record<string, unknown>; redacted: number } {
  let redacted = 0;
  const looksSecret = (s: string): boolean => findSecrets(s).length > 0;
  const visit = (value: unknown): unknown => {
    if (typeof value === 'string') {
      if (!looksSecret(value)) return value;
      redacted++;
      return REDACTED;
    }
    if (Array.isArray(value)) return value.map(visit);
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (looksSecret(k)) {
          redacted++;
          continue;
        }
        out[k] = visit(v);
      }
      return out;
    }
    return value;
  };
  const clean = visit(payload) as Record<string, unknown>;
  return { payload: clean, redacted };
}
