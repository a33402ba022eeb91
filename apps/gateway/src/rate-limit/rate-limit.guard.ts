import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal';
import { addressLimited, RateLimitedError } from './rate-limit.errors';
import { RateLimiter, rateLimitHeaders } from './rate-limiter';

/**
 * D-5, registered globally after the auth guard: counts each authenticated
 * request against its member's rolling window, sets the RateLimit-* headers
 * (kept on every response, errors included) and refuses over the limit
 * before any handler runs. Requests without a principal pass uncounted.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const principal: Principal | undefined = request.principal;
    if (!principal) return true;
    // One window per member however its id was spelled (issue 14); the client address checked
    // here when `onRequest` left it to this call (issue 17, unauthenticated-limit.hook.ts).
    const decision = await this.limiter.consume(principal.memberId.toLowerCase(), request.deferredAddressCheck);
    if (decision.addressBlocked) {
      const retryAfter = Math.max(1, decision.addressBlocked.resetSeconds);
      void http.getResponse<FastifyReply>().header('Retry-After', String(retryAfter));
      throw addressLimited(this.limiter.options.unauthenticatedLimit, this.limiter.options.windowMs, retryAfter);
    }
    void http.getResponse<FastifyReply>().headers(rateLimitHeaders(decision));
    if (!decision.allowed) {
      const { limit, windowMs } = this.limiter.options;
      throw new RateLimitedError(limit, windowMs, Math.max(1, decision.resetSeconds));
    }
    return true;
  }
}
