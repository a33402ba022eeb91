import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '../errors/domain-error';

export type CursorPosition = Array<string | number>;

const invalid = (why: string): DomainError => new DomainError(ErrorCode.INVALID_CURSOR, `The cursor is not valid for this query (${why}).`);

/**
 * What a cursor belongs to: the list it pages (an endpoint's name), whose list
 * it is (the member or the connector it was made for), and the query's filters.
 * A cursor made for any other list, owner or filters is refused (D-21, D-29).
 */
export interface CursorScope {
  list: string;
  owner: string;
  filters?: Record<string, unknown>;
}

/** A stable digest of a cursor's scope (filter key order does not matter; ids compare case-insensitively). */
function scopeDigest({ list, owner, filters = {} }: CursorScope): string {
  const canonical = JSON.stringify([
    list,
    owner.toLowerCase(),
    Object.keys(filters)
      .sort()
      .filter((k) => filters[k] !== undefined && filters[k] !== null)
      .map((k) => [k, filters[k]]),
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

/**
 * Opaque keyset cursors (D-21, D-29): the last row's sort key and a digest of
 * the cursor's scope (list, owner, filters), signed with HMAC-SHA256. A cursor
 * that was altered, made for another list, another caller or other filters, or
 * is not one of ours is `INVALID_CURSOR`.
 */
export class SignedCursor {
  constructor(private readonly secret: string) {
    if (secret.length < 16) throw new Error('cursor secret must have at least 16 characters');
  }

  encode(position: CursorPosition, scope: CursorScope): string {
    const body = Buffer.from(JSON.stringify({ p: position, f: scopeDigest(scope) })).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  decode(cursor: string, scope: CursorScope): CursorPosition {
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
    if (parsed.f !== scopeDigest(scope)) throw invalid('made for another list, caller or filters');
    if (!Array.isArray(parsed.p) || !parsed.p.every((v) => typeof v === 'string' || typeof v === 'number')) throw invalid('malformed');
    return parsed.p;
  }

  /**
   * The common keyset of a page cursor, `[createdAt, id]` as `encode([at.toISOString(), id], scope)`
   * wrote it: undefined for the first page.
   */
  createdAtKey(cursor: string | undefined, scope: CursorScope): { createdAt: string; id: string } | undefined {
    if (!cursor) return undefined;
    const [createdAt, id] = this.decode(cursor, scope);
    return { createdAt: String(createdAt), id: String(id) };
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url').slice(0, 22);
  }
}
