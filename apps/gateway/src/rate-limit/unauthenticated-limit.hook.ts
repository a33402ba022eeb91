import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';
import { clientAddress } from './client-address';
import type { RateLimiter } from './rate-limiter';

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
 * Issue 17 (ADR 0012 decision 17): a request whose credential `isVerified`
 * (an API token this replica verified recently and still trusts) skips the
 * check: it is not a guess, it costs no identity round trip, and the member
 * limit counts it. So one Redis call per request instead of two, and a valid
 * client behind an address an attacker shares is served.
 */
export function registerUnauthenticatedLimit(
  fastify: FastifyInstance,
  limiter: RateLimiter,
  isVerified: (authorization: string | string[] | undefined) => boolean,
): void {
  fastify.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url ?? '';
    if (!GUARDED.test(route)) return;
    if (isVerified(request.headers.authorization)) return;
    const { unauthenticatedLimit: limit, trustedProxyHops, windowMs } = limiter.options;
    const address = clientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], trustedProxyHops);
    const decision = await limiter.checkAddress(address, limit);
    if (!decision.allowed) {
      const retryAfter = Math.max(1, decision.resetSeconds);
      void reply.header('Retry-After', String(retryAfter));
      throw new DomainError(
        ErrorCode.RATE_LIMITED,
        `Too many failed authentications from this address (${limit} per ${windowMs / 1000} s); retry in ${retryAfter} s.`,
      );
    }
    reply.raw.once('finish', () => {
      if (isFailure(reply.statusCode, route)) void limiter.recordAddressFailure(address, limit);
    });
  });
}
