import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard as PassportAuthGuard } from '@nestjs/passport';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';
import { isApiRoute } from '../edge/routes';
import { FailedAuthentications } from '../rate-limit/failed-authentications';
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
 * anything else is tried as a deployment's own session JWT (D-11). A refused
 * credential is answered through `FailedAuthentications` (D-37: 401, or 429
 * past the address' limit).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: ApiTokenVerifier,
    private readonly jwt: JwtGuard,
    private readonly failures: FailedAuthentications,
    private readonly sessionJwts: SessionJwtVerifier,
    private readonly browserSessions: BrowserSessionVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [context.getHandler(), context.getClass()]);
    const versioned = isApiRoute(request.routeOptions.url ?? '');
    if (!versioned && rule === undefined) return true;
    if (rule === undefined) throw new Error(`route ${request.routeOptions.url ?? '?'} declares no access rule`);
    if (rule === 'public') return true;

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
    if (isWorktrackJwt(credential)) return this.sessionPrincipal(credential, context);
    await this.jwt.canActivate(context);
    const claims = (request as FastifyRequest & { user?: Principal }).user;
    if (!claims) throw unauthenticated();
    // A signed JWT is trusted for nothing its claims name until identity confirms the member.
    return this.tokens.verifyJwt(claims.workspaceId, claims.memberId);
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
