import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal';
import { RateLimitedError } from './rate-limit.errors';
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
    const principal: Principal | undefined = http.getRequest<FastifyRequest>().principal;
    if (!principal) return true;
    const decision = await this.limiter.consume(principal.memberId.toLowerCase()); // one window per member however its id was spelled
    void http.getResponse<FastifyReply>().headers(rateLimitHeaders(decision));
    if (!decision.allowed) {
      const { limit, windowMs } = this.limiter.options;
      throw new RateLimitedError(limit, windowMs, Math.max(1, decision.resetSeconds));
    }
    return true;
  }
}
