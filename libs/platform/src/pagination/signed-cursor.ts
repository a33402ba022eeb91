import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '../errors/domain-error';

export type CursorPosition = Array<string | number>;

const invalid = (why: string): DomainError => new DomainError(ErrorCode.INVALID_CURSOR, `The cursor is not valid for this query (${why}).`);

/** A stable digest of the filters a cursor belongs to (key order does not matter). */
function filtersDigest(filters: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(filters)
      .sort()
      .filter((k) => filters[k] !== undefined && filters[k] !== null)
      .map((k) => [k, filters[k]]),
  );
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

/**
 * Opaque keyset cursors (D-21, D-29): the last row's sort key and a digest of
 * the query's filters, signed with HMAC-SHA256. A cursor that was altered,
 * made for other filters, or is not one of ours is `INVALID_CURSOR`.
 */
export class SignedCursor {
  constructor(private readonly secret: string) {
    if (secret.length < 16) throw new Error('cursor secret must have at least 16 characters');
  }

  encode(position: CursorPosition, filters: Record<string, unknown>): string {
    const body = Buffer.from(JSON.stringify({ p: position, f: filtersDigest(filters) })).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  decode(cursor: string, filters: Record<string, unknown>): CursorPosition {
    const [body, signature, extra] = cursor.split('.');
    if (!body || !signature || extra !== undefined) throw invalid('malformed');
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid('signature');
    let parsed: { p?: unknown; f?: unknown };
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { p?: unknown; f?: unknown };
    } catch {
      throw invalid('malformed');
    }
    if (parsed.f !== filtersDigest(filters)) throw invalid('made for other filters');
    if (!Array.isArray(parsed.p) || !parsed.p.every((v) => typeof v === 'string' || typeof v === 'number')) throw invalid('malformed');
    return parsed.p;
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url').slice(0, 22);
  }
}
