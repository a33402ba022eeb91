import fastifyCors from '@fastify/cors';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/** What a browser may send to the API cross-origin: the headers the gateway reads. */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-Request-Id'];
/** What a script of an allowed origin may read from a response (D-4, D-5). */
const EXPOSED_HEADERS = ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'];
const METHODS = ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'];
/** How long a browser may reuse a preflight answer, in seconds. */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * Browsers of the operator-listed origins (CORS_ALLOWED_ORIGINS,
 * exact matches) may call the API; the preflight is answered 204 before
 * authentication. Nothing is registered when the list is empty, so no CORS
 * header is ever sent. The origin is decided by a function rather than
 * @fastify/cors' list form: with a list, an unlisted origin still gets
 * `Access-Control-Allow-Credentials` and the exposed headers, and its
 * preflight still a 204; with `false` from the function it gets no CORS
 * header at all (its preflight is an unknown route, 404). An allowed origin is
 * echoed, never `*`. Registered before the other request hooks so that errors
 * (401, 429) are readable by an allowed page too.
 */
export async function registerCors(app: NestFastifyApplication, allowedOrigins: readonly string[]): Promise<void> {
  if (allowedOrigins.length === 0) return;
  const allowed = new Set(allowedOrigins);
  await app.register(fastifyCors, {
    origin: (origin: string | undefined, callback: (error: Error | null, allow: boolean) => void) =>
      callback(null, origin !== undefined && allowed.has(origin)),
    credentials: true,
    methods: METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
    // A bare OPTIONS from an allowed origin is answered like a preflight rather than with a non-JSON 400.
    strictPreflight: false,
  });
}
