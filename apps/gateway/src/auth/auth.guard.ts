import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard as PassportAuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { ACCESS_RULE, DURING_ENROLMENT, type AccessRule } from './access.decorator';
import { ApiTokenVerifier, BEARER } from './api-token.verifier';
import { reportOnlyCredential, twoFactorRequired, unauthenticated } from './auth.errors';
import { BrowserSessionVerifier } from './browser-session.verifier';
import type { Principal } from './principal';
import { isWorktrackJwt, SessionJwtVerifier } from './session-jwt.verifier';

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
 * status, API docs) is public. A bearer in the `wt_…` form is an API token;
 * an ES256 JWT with a `kid` is one of worktrack's session JWTs (D-40);
 * anything else is tried as a deployment's own session JWT (D-11).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: ApiTokenVerifier,
    private readonly jwt: JwtGuard,
    private readonly sessionJwts: SessionJwtVerifier,
    private readonly browserSessions: BrowserSessionVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [context.getHandler(), context.getClass()]);
    const versioned = (request.routeOptions.url ?? '').startsWith('/v1/');
    if (!versioned && rule === undefined) return true;
    if (rule === undefined) throw new Error(`route ${request.routeOptions.url ?? '?'} declares no access rule`);
    if (rule === 'public') return true;

    const header = request.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header.trim()) : null;
    if (!match) throw unauthenticated();
    const credential = match[1];
    if (credential.startsWith('wt_')) {
      request.principal = await this.tokens.verify(credential);
    } else if (isWorktrackJwt(credential)) {
      request.principal = await this.sessionPrincipal(credential, context);
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

  /**
   * D-40: a worktrack session JWT — verified locally by `kid`, then its
   * browser session must be on and its member active (both cached, both
   * dropped by the identity.events feed: refused by every replica within 5 s).
   * D-42: a session whose member must enrol in two-factor first may only enrol.
   */
  private async sessionPrincipal(token: string, context: ExecutionContext): Promise<Principal> {
    const claims = await this.sessionJwts.verify(token);
    const state = await this.browserSessions.check(claims.sid);
    if (!state.active || state.memberId !== claims.memberId || state.workspaceId !== claims.workspaceId) throw unauthenticated();
    const principal = await this.tokens.verifyJwt(claims.workspaceId, claims.memberId);
    if (state.twoFactorRequired) {
      const allowed = this.reflector.getAllAndOverride<boolean | undefined>(DURING_ENROLMENT, [context.getHandler(), context.getClass()]);
      if (!allowed) throw twoFactorRequired();
    }
    return { ...principal, sid: claims.sid };
  }
}
