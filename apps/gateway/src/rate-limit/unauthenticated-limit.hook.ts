import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clientAddress } from './client-address';
import { addressLimited } from './rate-limit.errors';
import type { RateLimiter } from './rate-limiter';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Issue 17: the client address whose unauthenticated limit the rate-limit
     * guard checks, in the same Redis call as the member's count, because
     * `onRequest` found the request's credential already verified.
     */
    deferredAddressCheck?: string;
  }
}

/** Routes where a request can fail authentication: the API, provider hooks, operator endpoints, the MCP server. */
const GUARDED = /^\/(v1\/|hooks\/|status$|metrics$|mcp$)/;

/** 401 anywhere, or a hook that names no live connector: what a credential-guesser causes. */
const isFailure = (status: number, route: string): boolean => status === 401 || (status === 404 && route.startsWith('/hooks/'));

/**
 * Issue 14: a client address that caused `unauthenticatedLimit` failures
 * (401s, unknown hooks) within the window gets 429 RATE_LIMITED with
 * Retry-After. It runs as a Fastify onRequest hook — before the body is read
 * and before any guard — so a blocked address costs neither an identity
 * round trip per guessed token, nor a connector lookup per forged hook, nor
 * the reading of a 25 MiB hook body. Successful requests are not counted;
 * the failure log is read per request (one Redis call) and written only when
 * a response fails. Fails open with the D-5 limiter when Redis does not
 * answer. Must be registered before the app is initialised.
 *
 * Issue 17: a /v1 request whose credential `verified` says is already
 * verified (held in the credential cache: it costs no identity round trip,
 * which is what the early check protects) leaves the check to the rate-limit
 * guard, which makes it in the same Redis call as the member's count — one
 * Redis round trip per request instead of two. Same limit, same answer
 * (429 with Retry-After, the member not counted), only later in the request.
 */
export function registerUnauthenticatedLimit(
  fastify: FastifyInstance,
  limiter: RateLimiter,
  verified: (request: FastifyRequest) => boolean = () => false,
): void {
  fastify.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url ?? '';
    if (!GUARDED.test(route)) return;
    const { unauthenticatedLimit: limit, trustedProxyHops, windowMs } = limiter.options;
    const address = clientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], trustedProxyHops);
    if (route.startsWith('/v1/') && verified(request)) {
      request.deferredAddressCheck = address;
    } else {
      const decision = await limiter.checkAddress(address, limit);
      if (!decision.allowed) {
        const retryAfter = Math.max(1, decision.resetSeconds);
        void reply.header('Retry-After', String(retryAfter));
        throw addressLimited(limit, windowMs, retryAfter);
      }
    }
    reply.raw.once('finish', () => {
      if (isFailure(reply.statusCode, route)) void limiter.recordAddressFailure(address, limit);
    });
  });
}
