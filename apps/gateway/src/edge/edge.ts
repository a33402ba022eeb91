import fastifyCookie from '@fastify/cookie';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { registerCredentialScreen } from '../auth/credential-screen';
import { ApiTokenVerifier } from '../auth/api-token.verifier';
import { GatewayConfig } from '../gateway.config';
import { registerCors } from '../http/cors';
import { registerInputGuard } from '../http/input-guard';
import { registerNoStore } from '../http/no-store';
import { registerRequestDeadline } from '../http/request-deadline';
import { gatewayValidationPipe } from '../http/validation.pipe';
import { FailedAuthentications } from '../rate-limit/failed-authentications';
import { registerBodyParsers } from './body-parsers';

/**
 * The gateway's edge: everything a request meets before and after its
 * controller, in the order it meets it. Fastify runs the hooks of one stage
 * in the order they are added, so the order of the calls below is the order
 * of the request; `configureGateway` (gateway.app.ts) calls this once, before
 * Nest registers the routes.
 *
 *  1. Node's HTTP parser and Fastify's router errors (a header block over the
 *     limit, a malformed request line, a bad percent-encoding) answer in the
 *     D-1 envelope: server options, given when the app is created
 *     (`gatewayErrors`, http/http-layer-errors.ts), as these never reach a hook.
 *  2. Request id (D-4) and log context: the platform's first onRequest hook
 *     (`createHttpApp`), so every later refusal and log line carries the id.
 *  3–8. The hooks registered below, in order.
 *  9. Nest's global guards (gateway.module.ts): authentication and scope
 *     (AuthGuard, D-9), then the per-member rate limit (RateLimitGuard, D-5),
 *     counted only once the member is known.
 * 10. The global validation pipe: DTOs, unknown fields refused (below, last).
 * 11. The controller.
 * 12. Every error on the way, from a hook, a guard, the pipe or the handler,
 *     leaves as the D-1 envelope (`gatewayErrors`, http/error-envelope.ts);
 *     an unknown route is 404 NOT_FOUND through the same mapping.
 * 13. Retry-After on every 503 (onSend), then request metrics and the access
 *     log line (onResponse): the platform's, for every service.
 *
 * Which paths count as the API, the provider hooks and the operator routes
 * is decided once, in ./routes.ts.
 */
export async function registerEdge(app: NestFastifyApplication): Promise<void> {
  const config = app.get(GatewayConfig);
  const fastify = app.getHttpAdapter().getInstance();

  // 3. CORS (onRequest): first of ours, so a preflight is answered before any
  //    credential check and a refusal below (401, 429) is readable by an allowed page.
  await registerCors(app, config.corsAllowedOrigins);
  // 4. Cookies (onRequest): parses the refresh cookie of the sign-in routes (D-40).
  await app.register(fastifyCookie);
  // 5. Cache-Control: no-store (onRequest) on the API and /status, before any
  //    refusal, so refusals carry it as well as answers.
  registerNoStore(fastify);
  // 6. Credential screen (onRequest, D-37): a credential certainly refused is
  //    answered 401/429 before the body is read or a command is sent.
  registerCredentialScreen(fastify, app.get(ApiTokenVerifier), app.get(FailedAuthentications), config.OPERATOR_TOKEN);
  // 7. Body parsing: JSON for every route, raw bytes and their own limit for
  //    the provider hooks (their signatures cover the exact bytes).
  registerBodyParsers(fastify, config.HOOK_BODY_LIMIT_BYTES);
  // 8. Hostile input (onRequest: a compressed body is 415 before it is read;
  //    preValidation: NUL, lone surrogates, depth and prototype keys in the
  //    parsed body, query and path), then the request deadline (preHandler,
  //    D-2), which starts once the body has arrived and bounds everything after.
  registerInputGuard(fastify);
  registerRequestDeadline(fastify, config.REQUEST_TIMEOUT_MS);
  // 10. Validation of every DTO, after the guards (step 9).
  app.useGlobalPipes(gatewayValidationPipe());
}
