import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard as PassportAuthGuard } from '@nestjs/passport';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';
import { FailedAuthentications } from '../rate-limit/failed-authentications';
import { ACCESS_RULE, type AccessRule } from './access.decorator';
import { ApiTokenVerifier, BEARER } from './api-token.verifier';
import { reportOnlyCredential, unauthenticated } from './auth.errors';
import type { Principal } from './principal';

/** passport-jwt through @nestjs/passport, with failures as D-2 codes. */
@Injectable()
export class JwtGuard extends PassportAuthGuard('jwt') {
  override handleRequest<T = Principal>(err: unknown, user: T | false): T {
    if (err || !user) throw unauthenticated();
    return user;
  }
}

/**
 * The one place credentials and scopes are enforced (D-9, D-11). Routes under
 * /v1 must declare an access rule; everything outside /v1 (probes, metrics,
 * status, API docs) is public. A bearer in the `wt_…` form is an API token,
 * anything else is tried as a session JWT. A refused credential is answered
 * through `FailedAuthentications` (D-37: 401, or 429 past the address' limit).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: ApiTokenVerifier,
    private readonly jwt: JwtGuard,
    private readonly failures: FailedAuthentications,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [context.getHandler(), context.getClass()]);
    const versioned = (request.routeOptions.url ?? '').startsWith('/v1/');
    if (!versioned && rule === undefined) return true;
    if (rule === undefined) throw new Error(`route ${request.routeOptions.url ?? '?'} declares no access rule`);

    try {
      request.principal = await this.authenticate(context, request);
    } catch (err) {
      // D-37: a failure past the address' limit is answered 429 instead.
      if (err instanceof DomainError && err.code === ErrorCode.UNAUTHENTICATED) {
        await this.failures.refuse(request, context.switchToHttp().getResponse<FastifyReply>(), err);
      }
      throw err;
    }
    if (rule === 'full' && request.principal.scope !== 'full') throw reportOnlyCredential();
    return true;
  }

  private async authenticate(context: ExecutionContext, request: FastifyRequest): Promise<Principal> {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header.trim()) : null;
    if (!match) throw unauthenticated();
    const credential = match[1];
    if (credential.startsWith('wt_')) return this.tokens.verify(credential);
    await this.jwt.canActivate(context);
    const claims = (request as FastifyRequest & { user?: Principal }).user;
    if (!claims) throw unauthenticated();
    // A signed JWT is trusted for nothing its claims name until identity confirms the member.
    return this.tokens.verifyJwt(claims.workspaceId, claims.memberId);
  }
}
