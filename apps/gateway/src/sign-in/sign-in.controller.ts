import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AcceptInvite,
  ChangePassword,
  EndBrowserSession,
  ErrorCode,
  ListBrowserSessions,
  passwordDigest,
  RefreshBrowserSession,
  secretSha256,
  SignIn,
  SignOut,
  MAX_USER_AGENT,
  type SignedInV1,
} from '@worktrack/contracts';
import { CommandClient } from '@worktrack/platform';
import { Access, AllowedDuringEnrolment } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { BrowserSessionVerifier } from '../auth/browser-session.verifier';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { GatewayConfig } from '../gateway.config';
import { presentMember } from '../me/member.presenter';
import { ApiData, ApiErrors, ApiPublic } from '../openapi/api-responses';
import { ApiValidatedBody, ApiValidatedParams } from '../openapi/validation-schemas';
import { clientAddress } from '../rate-limit/client-address';
import { clearRefreshCookie, drawRefreshSecret, presentedRefresh, requireOwnOrigin, setRefreshCookie } from './refresh-cookie';
import {
  AcceptInviteDto,
  BrowserSessionBody,
  BrowserSessionIdParam,
  ChangePasswordDto,
  LoginDto,
  PasswordChangedBody,
  SignedInBody,
  SignedOutBody,
} from './sign-in.dto';

/** How long a browser keeps the refresh cookie; identity ends an idle session sooner (REFRESH_IDLE_DAYS). */
const COOKIE_DAYS = 30;

const userAgentOf = (request: FastifyRequest): string | undefined => {
  const ua = request.headers['user-agent'];
  return typeof ua === 'string' && ua !== '' ? ua.slice(0, MAX_USER_AGENT) : undefined;
};

/**
 * People signing in (D-38 … D-40): the gateway routes to identity, draws
 * each refresh secret (identity stores its hash; the secret lives only in the
 * cookie) and sends passwords as digests, never as typed.
 */
@ApiTags('Sign-in')
@Controller()
export class SignInController {
  constructor(
    private readonly commands: CommandClient,
    private readonly config: GatewayConfig,
    private readonly browserSessions: BrowserSessionVerifier,
  ) {}

  @Post('auth/login')
  @HttpCode(200)
  @Access('public')
  @ApiPublic()
  @ApiOperation({
    summary: 'Sign in with email and password',
    description:
      'Answers a session JWT and sets the refresh cookie (`HttpOnly; Secure; SameSite=Strict; Path=/v1/auth`). An unknown email and a ' +
      'wrong password get the same 401 `INVALID_CREDENTIALS`; with two-factor on, send `totp_code` or `recovery_code` (else 401 ' +
      '`SECOND_FACTOR_REQUIRED`). Five failures per email and client address in 15 minutes: 429 for that pair only.',
  })
  @ApiValidatedBody(LoginDto)
  @ApiData(200, SignedInBody, 'Signed in; the refresh cookie is set.')
  @ApiErrors(ErrorCode.INVALID_CREDENTIALS, ErrorCode.SECOND_FACTOR_REQUIRED, ErrorCode.FORBIDDEN)
  async login(@Body() body: LoginDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const refresh = drawRefreshSecret();
    const signedIn = await this.commands.send(
      SignIn,
      {
        email: body.email,
        passwordDigest: passwordDigest(body.password),
        ...(body.totp_code ? { totpCode: body.totp_code } : {}),
        ...(body.recovery_code ? { recoveryCodeSha256: secretSha256(body.recovery_code.trim().toLowerCase()) } : {}),
        address: this.addressOf(request),
        refreshSha256: refresh.sha256,
        ...(userAgentOf(request) ? { userAgent: userAgentOf(request) } : {}),
      },
      { key: body.email.toLowerCase() },
    );
    return this.signedIn(signedIn, refresh.secret, reply);
  }

  @Post('auth/refresh')
  @HttpCode(200)
  @Access('public')
  @ApiPublic()
  @ApiOperation({
    summary: 'Renew the access token',
    description:
      'With the refresh cookie only (no body), from the app’s own origin (`Origin`, else 403). Rotates the refresh secret; presenting a ' +
      'rotated-out one ends that browser session.',
  })
  @ApiData(200, SignedInBody, 'A new access token; the refresh cookie is replaced.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async refresh(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    requireOwnOrigin(request, this.config.PUBLIC_URL);
    const presented = presentedRefresh(request);
    const next = drawRefreshSecret();
    try {
      const signedIn = await this.commands.send(
        RefreshBrowserSession,
        { presentedSha256: presented, refreshSha256: next.sha256, ...(userAgentOf(request) ? { userAgent: userAgentOf(request) } : {}) },
        { key: presented },
      );
      return this.signedIn(signedIn, next.secret, reply);
    } catch (err) {
      clearRefreshCookie(reply);
      throw err;
    }
  }

  @Post('auth/logout')
  @HttpCode(200)
  @Access('public')
  @ApiPublic()
  @ApiOperation({
    summary: 'Sign out',
    description: 'Ends the browser session of the refresh cookie (from the app’s own origin) and clears the cookie.',
  })
  @ApiData(200, SignedOutBody, 'Signed out.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async logout(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ data: SignedOutBody }> {
    requireOwnOrigin(request, this.config.PUBLIC_URL);
    const presented = presentedRefresh(request);
    const out = await this.commands.send(SignOut, { presentedSha256: presented }, { key: presented });
    if (out.sid) this.browserSessions.end(out.sid);
    clearRefreshCookie(reply);
    return { data: { signed_out: out.ended } };
  }

  @Get('auth/sessions')
  @Access('read')
  @AllowedDuringEnrolment()
  @ApiOperation({ summary: 'List your browser sessions', description: 'Sessions that have not ended, newest first.' })
  @ApiData(200, [BrowserSessionBody], 'Your browser sessions.')
  async sessions(@CurrentPrincipal() principal: Principal): Promise<{ data: BrowserSessionBody[] }> {
    const { sessions } = await this.commands.send(ListBrowserSessions, { actor: actorOf(principal) }, { key: principal.memberId });
    return {
      data: sessions.map((s) => ({
        sid: s.sid,
        created_at: s.createdAt,
        last_used_at: s.lastUsedAt,
        user_agent: s.userAgent,
        current: s.current,
      })),
    };
  }

  @Delete('auth/sessions/:sid')
  @Access('full')
  @AllowedDuringEnrolment()
  @ApiOperation({
    summary: 'End a browser session',
    description: 'Its access tokens are refused by every gateway replica within 5 seconds. Another member’s session is a 404.',
  })
  @ApiValidatedParams(BrowserSessionIdParam)
  @ApiData(200, BrowserSessionBody, 'The session, ended.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async end(@CurrentPrincipal() principal: Principal, @Param() params: BrowserSessionIdParam): Promise<{ data: BrowserSessionBody }> {
    const sid = params.sid.toLowerCase();
    const s = await this.commands.send(EndBrowserSession, { actor: actorOf(principal), sid }, { key: principal.memberId });
    this.browserSessions.end(sid);
    return { data: { sid: s.sid, created_at: s.createdAt, last_used_at: s.lastUsedAt, user_agent: s.userAgent, current: s.current } };
  }

  @Post('me/password')
  @HttpCode(200)
  @Access('full')
  @ApiOperation({
    summary: 'Change your password',
    description: 'Checks the current one (400 when it is not right); ends your other browser sessions (this one stays).',
  })
  @ApiValidatedBody(ChangePasswordDto)
  @ApiData(200, PasswordChangedBody, 'Changed.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async changePassword(@CurrentPrincipal() principal: Principal, @Body() body: ChangePasswordDto): Promise<{ data: PasswordChangedBody }> {
    const { endedSessions } = await this.commands.send(
      ChangePassword,
      { actor: actorOf(principal), currentDigest: passwordDigest(body.current_password), newDigest: passwordDigest(body.new_password) },
      { key: principal.memberId },
    );
    return { data: { ended_sessions: endedSessions } };
  }

  @Post('auth/accept-invite')
  @HttpCode(200)
  @Access('public')
  @ApiPublic()
  @ApiOperation({
    summary: 'Accept an invite',
    description:
      'The link’s `token` works once, before it expires: creates the member in the inviter’s workspace and signs it in (refresh cookie). ' +
      'A used, withdrawn or expired link is 401 `INVALID_CREDENTIALS`.',
  })
  @ApiValidatedBody(AcceptInviteDto)
  @ApiData(200, SignedInBody, 'Signed in as the new member; the refresh cookie is set.')
  @ApiErrors(ErrorCode.INVALID_CREDENTIALS, ErrorCode.MEMBER_EXISTS)
  async acceptInvite(@Body() body: AcceptInviteDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const refresh = drawRefreshSecret();
    const signedIn = await this.commands.send(
      AcceptInvite,
      {
        secretSha256: secretSha256(body.token),
        passwordDigest: passwordDigest(body.password),
        refreshSha256: refresh.sha256,
        ...(body.display_name !== undefined ? { displayName: body.display_name } : {}),
        ...(body.timezone !== undefined ? { timezone: body.timezone } : {}),
        ...(userAgentOf(request) ? { userAgent: userAgentOf(request) } : {}),
      },
      { key: secretSha256(body.token) },
    );
    return this.signedIn(signedIn, refresh.secret, reply);
  }

  private signedIn(signedIn: SignedInV1, refreshSecret: string, reply: FastifyReply): { data: SignedInBody } {
    setRefreshCookie(reply, refreshSecret, COOKIE_DAYS);
    return {
      data: {
        access_token: signedIn.accessToken,
        token_type: 'Bearer',
        expires_in: signedIn.expiresIn,
        member: presentMember(signedIn.member),
      },
    };
  }

  private addressOf(request: FastifyRequest): string {
    return clientAddress(request.socket.remoteAddress, request.headers['x-forwarded-for'], this.config.TRUSTED_PROXY_HOPS).slice(0, 64);
  }
}
