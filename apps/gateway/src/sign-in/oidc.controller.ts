import { randomBytes } from 'node:crypto';
import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ErrorCode,
  FinishOidcSignIn,
  httpStatusOf,
  ListSignInMethods,
  MAX_RETURN_TO,
  MAX_USER_AGENT,
  OIDC_PROVIDER_ID,
  secretSha256,
  StartOidcSignIn,
} from '@worktrack/contracts';
import { CommandClient, DomainError } from '@worktrack/platform';
import { Access } from '../auth/access.decorator';
import { ApiErrors, ApiPublic } from '../openapi/api-responses';
import { drawRefreshSecret, setRefreshCookie } from './refresh-cookie';
import { SignInMethodsMeta, SignInProviderBody } from './oidc.dto';
import { sendSignInRefusal } from './oidc-page';

/**
 * D-41: the cookie that binds a single sign-on to the browser that started
 * it. `SameSite=Lax`: the provider's redirect back is a cross-site top-level
 * navigation, which a Strict cookie would miss.
 */
export const OIDC_COOKIE = 'wt_oidc';
const OIDC_COOKIE_PATH = '/v1/auth/oidc';
const BINDING = /^[A-Za-z0-9_-]{43}$/;
/** How long a browser keeps the refresh cookie (as password sign-in). */
const COOKIE_DAYS = 30;
const MAX_CALLBACK_QUERY = 8192;

const userAgentOf = (request: FastifyRequest): string | undefined => {
  const ua = request.headers['user-agent'];
  return typeof ua === 'string' && ua !== '' ? ua.slice(0, MAX_USER_AGENT) : undefined;
};

/**
 * Single sign-on with OpenID Connect (D-41). The gateway only routes:
 * identity keeps the flows and talks to the providers. The gateway draws
 * the browser binding (its cookie) and the refresh secret, and sends
 * identity their hashes only. Whatever goes wrong ends on an HTML page that
 * says why (the browser arrived by a redirect).
 */
@ApiTags('Sign-in')
@ApiExtraModels(SignInProviderBody, SignInMethodsMeta)
@Controller()
export class OidcController {
  constructor(private readonly commands: CommandClient) {}

  @Get('auth/providers')
  @Access('public')
  @ApiPublic()
  @ApiOperation({
    summary: 'How people sign in here',
    description:
      'The single sign-on providers configured here (`data`, one “Sign in with …” button each) and whether password sign-in is on ' +
      '(`meta.password_login`).',
  })
  @ApiResponse({
    status: 200,
    description: 'The providers, and whether password sign-in is on.',
    schema: {
      type: 'object',
      required: ['data', 'meta'],
      additionalProperties: false,
      properties: {
        data: { type: 'array', items: { $ref: '#/components/schemas/SignInProviderBody' } },
        meta: { $ref: '#/components/schemas/SignInMethodsMeta' },
      },
    },
  })
  async providers(): Promise<{ data: SignInProviderBody[]; meta: SignInMethodsMeta }> {
    const methods = await this.commands.send(ListSignInMethods, { reason: 'sign-in page' }, { key: 'sign-in-methods' });
    return { data: methods.providers.map(({ id, name }) => ({ id, name })), meta: { password_login: methods.passwordLogin } };
  }

  @Get('auth/oidc/:provider/start')
  @Access('public')
  @ApiPublic()
  @ApiOperation({
    summary: 'Start signing in with a provider',
    description:
      'A browser navigation (not an API call): redirects to the provider (authorization code with PKCE, `state` and `nonce`), bound ' +
      'to this browser by a short-lived cookie. An unknown provider, or one that cannot be reached, ends on an HTML page that says why.',
  })
  @ApiParam({
    name: 'provider',
    description: 'A provider id from `GET /v1/auth/providers`.',
    schema: { type: 'string', pattern: OIDC_PROVIDER_ID.source, examples: ['corp'] },
  })
  @ApiResponse({ status: 302, description: 'To the provider’s sign-in.' })
  @ApiErrors(ErrorCode.NOT_FOUND)
  async start(
    @Param('provider') provider: string,
    @Query('return_to') returnTo: unknown,
    @Res() reply: FastifyReply,
  ): Promise<FastifyReply> {
    if (!OIDC_PROVIDER_ID.test(provider)) return sendSignInRefusal(reply, 404, 'There is no such sign-in provider here.');
    const target = typeof returnTo === 'string' && returnTo.length <= MAX_RETURN_TO ? returnTo : undefined;
    const binding = randomBytes(32).toString('base64url');
    try {
      const redirect = await this.commands.send(
        StartOidcSignIn,
        { provider, bindingSha256: secretSha256(binding), ...(target !== undefined ? { returnTo: target } : {}) },
        { key: provider },
      );
      void reply.setCookie(OIDC_COOKIE, binding, {
        httpOnly: true,
        secure: true,
        sameSite: 'lax',
        path: OIDC_COOKIE_PATH,
        maxAge: redirect.expiresIn,
      });
      return reply
        .status(302)
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .redirect(redirect.authorizationUrl);
    } catch (err) {
      return this.refuse(err, reply);
    }
  }

  @Get('auth/oidc/:provider/callback')
  @Access('public')
  @ApiPublic()
  @ApiOperation({
    summary: 'Come back from a provider',
    description:
      'Where the provider sends the browser back (the redirect URI to register with it). Checks `state` against this browser’s ' +
      'cookie, and the ID token; links the verified email to the member of the provider’s workspace (or creates one when the ' +
      'provider lets new people join and the domain is allowed), sets the refresh cookie and redirects to `return_to`. A refusal ' +
      '(unverified email, a domain that is not allowed, a `state` or code used already) is an HTML page that says why.',
  })
  @ApiParam({
    name: 'provider',
    description: 'The provider the sign-in started with.',
    schema: { type: 'string', pattern: OIDC_PROVIDER_ID.source, examples: ['corp'] },
  })
  @ApiResponse({ status: 302, description: 'Signed in (the refresh cookie is set): to `return_to` on this origin.' })
  @ApiErrors(ErrorCode.NOT_FOUND, ErrorCode.FORBIDDEN)
  async callback(@Param('provider') provider: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    void reply.clearCookie(OIDC_COOKIE, { httpOnly: true, secure: true, sameSite: 'lax', path: OIDC_COOKIE_PATH });
    if (!OIDC_PROVIDER_ID.test(provider)) return sendSignInRefusal(reply, 404, 'There is no such sign-in provider here.');
    const queryAt = request.url.indexOf('?');
    const callbackQuery = queryAt < 0 ? '' : request.url.slice(queryAt + 1);
    if (callbackQuery.length > MAX_CALLBACK_QUERY)
      return sendSignInRefusal(reply, 400, 'The answer from the sign-in provider is too long.');
    const binding = request.cookies[OIDC_COOKIE];
    const refresh = drawRefreshSecret();
    try {
      const done = await this.commands.send(
        FinishOidcSignIn,
        {
          provider,
          ...(typeof binding === 'string' && BINDING.test(binding) ? { bindingSha256: secretSha256(binding) } : {}),
          callbackQuery,
          refreshSha256: refresh.sha256,
          ...(userAgentOf(request) ? { userAgent: userAgentOf(request) } : {}),
        },
        { key: provider },
      );
      setRefreshCookie(reply, refresh.secret, COOKIE_DAYS);
      // Identity answers a path of this origin; checked again here so a redirect never leaves it.
      const target =
        done.returnTo.startsWith('/') && !done.returnTo.startsWith('//') && !done.returnTo.includes('\\') ? done.returnTo : '/';
      return reply.status(302).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(target);
    } catch (err) {
      return this.refuse(err, reply);
    }
  }

  private refuse(err: unknown, reply: FastifyReply): FastifyReply {
    if (!(err instanceof DomainError)) throw err;
    const status = httpStatusOf(err.code);
    if (status === 503) void reply.header('retry-after', '30');
    return sendSignInRefusal(
      reply,
      status,
      status >= 500 && err.code !== ErrorCode.UNAVAILABLE ? 'Signing in does not work right now.' : err.message,
    );
  }
}
