import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';
import { clientAddress } from './client-address';
import { RateLimiter } from './rate-limiter';

/** A response that counts as a failed authentication: a 401 anywhere, or a hook that names no live connector. */
const isFailure = (status: number, route: string): boolean => status === 401 || (status === 404 && route.startsWith('/hooks/'));

/**
 * D-37: failed authentications per client address. Each failure (a 401, a
 * hook naming no connector) is recorded against the address it came from;
 * once an address has `unauthenticatedLimit` failures in the window, its
 * further failures are answered 429 RATE_LIMITED with Retry-After instead of
 * 401. Only failures are judged: a valid API token, session JWT, provider
 * signature or operator credential from the same address is served as
 * usual, so one client looping on a bad credential never locks out the
 * others behind its NAT. Refusals are not recorded, so hammering does not
 * extend the lockout. Fails open with the D-5 limiter when Redis does not
 * answer.
 */
@Injectable()
export class FailedAuthentications {
  constructor(private readonly limiter: RateLimiter) {}

  /** Records the response against its address when it turns out a failed authentication (registered when the request arrives). */
  watch(request: FastifyRequest, reply: FastifyReply, route: string): void {
    reply.raw.once('finish', () => {
      if (isFailure(reply.statusCode, route))
        void this.limiter.recordAddressFailure(this.addressOf(request), this.limiter.options.unauthenticatedLimit);
    });
  }

  /** Throws `failure` (a 401, or a hook's 404), or 429 RATE_LIMITED with Retry-After once the address is past its limit. */
  async refuse(request: FastifyRequest, reply: FastifyReply, failure: unknown): Promise<never> {
    const { unauthenticatedLimit: limit, windowMs } = this.limiter.options;
    const decision = await this.limiter.checkAddress(this.addressOf(request), limit);
    if (decision.allowed) throw failure;
    const retryAfter = Math.max(1, decision.resetSeconds);
    void reply.header('Retry-After', String(retryAfter));
    throw new DomainError(
      ErrorCode.RATE_LIMITED,
      `Too many failed authentications from this address (${limit} per ${windowMs / 1000} s); retry in ${retryAfter} s. Valid credentials are still served.`,
    );
  }

  private addressOf(request: FastifyRequest): string {
    return clientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], this.limiter.options.trustedProxyHops);
  }
}
