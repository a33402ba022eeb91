import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard as PassportAuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
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
 * anything else is tried as a session JWT.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: ApiTokenVerifier,
    private readonly jwt: JwtGuard,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [context.getHandler(), context.getClass()]);
    const versioned = (request.routeOptions.url ?? '').startsWith('/v1/');
    if (!versioned && rule === undefined) return true;
    if (rule === undefined) throw new Error(`route ${request.routeOptions.url ?? '?'} declares no access rule`);

    const header = request.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header.trim()) : null;
    if (!match) throw unauthenticated();
    const credential = match[1];
    if (credential.startsWith('wt_')) {
      request.principal = await this.tokens.verify(credential);
    } else {
      await this.jwt.canActivate(context);
      const claims = (request as FastifyRequest & { user?: Principal }).user;
      // A signed JWT is trusted for nothing its claims name until identity confirms the member (issue 14).
      request.principal = claims ? await this.tokens.verifyJwt(claims.workspaceId, claims.memberId) : undefined;
    }
    if (!request.principal) throw unauthenticated();
    if (rule === 'full' && request.principal.scope !== 'full') throw reportOnlyCredential();
    return true;
  }
}
