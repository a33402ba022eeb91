import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, secretSha256 } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-40: the refresh cookie, sent only to the sign-in routes. */
export const REFRESH_COOKIE = 'wt_refresh';
export const REFRESH_COOKIE_PATH = '/v1/auth';
/** A refresh secret: 256 random bits, base64url. */
const REFRESH_SECRET = /^[A-Za-z0-9_-]{43}$/;

/** A new refresh secret and the hash identity stores (the secret itself never leaves the gateway but in the cookie). */
export function drawRefreshSecret(): { secret: string; sha256: string } {
  const secret = randomBytes(32).toString('base64url');
  return { secret, sha256: secretSha256(secret) };
}

export function setRefreshCookie(reply: FastifyReply, secret: string, maxAgeDays: number): void {
  void reply.setCookie(REFRESH_COOKIE, secret, {
    httpOnly: true,
    secure: true,
    sameSite: 'strict',
    path: REFRESH_COOKIE_PATH,
    maxAge: maxAgeDays * 86_400,
  });
}

export function clearRefreshCookie(reply: FastifyReply): void {
  void reply.clearCookie(REFRESH_COOKIE, { httpOnly: true, secure: true, sameSite: 'strict', path: REFRESH_COOKIE_PATH });
}

/** The presented refresh secret's hash, or UNAUTHENTICATED when the cookie is missing or not one the gateway draws. */
export function presentedRefresh(request: FastifyRequest): string {
  const secret = request.cookies[REFRESH_COOKIE];
  if (typeof secret !== 'string' || !REFRESH_SECRET.test(secret)) {
    throw new DomainError(ErrorCode.UNAUTHENTICATED, 'No valid browser session: sign in again.');
  }
  return secretSha256(secret);
}

/**
 * D-40: the cookie routes answer only the app's own origin (PUBLIC_URL): a
 * request without `Origin`, or from another origin, is refused before
 * anything is looked up, so it ends nothing.
 */
export function requireOwnOrigin(request: FastifyRequest, publicUrl: string): void {
  const origin = request.headers.origin;
  if (origin !== publicUrl) {
    throw new DomainError(ErrorCode.FORBIDDEN, 'This request must come from the app itself (its Origin must be the app’s own).', [
      { path: 'Origin', issue: origin === undefined ? 'missing' : 'not the app’s origin' },
    ]);
  }
}
