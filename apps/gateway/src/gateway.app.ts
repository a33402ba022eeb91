import { RequestMethod, type INestApplication } from '@nestjs/common';
import fastifyCookie from '@fastify/cookie';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp, createLogger, Metrics, type AppLogger } from '@worktrack/platform';
import { GatewayConfig } from './gateway.config';
import { GatewayModule } from './gateway.module';
import { registerBodyParsers } from './connectors/raw-body';
import { registerCors } from './http/cors';
import { gatewayErrors } from './http/error-envelope';
import { registerInputGuard } from './http/input-guard';
import { registerNoStore } from './http/no-store';
import { registerRequestDeadline } from './http/request-deadline';
import { findWebRoot, registerWebApp } from './http/web-app';
import { gatewayValidationPipe } from './http/validation.pipe';
import { mountApiDocs } from './openapi/openapi';
import { ApiTokenVerifier } from './auth/api-token.verifier';
import { registerCredentialScreen } from './auth/credential-screen';
import { FailedAuthentications } from './rate-limit/failed-authentications';

/** The API version prefix (D-6 documents the routes under it). */
export const API_PREFIX = 'v1';

/** Paths served outside the /v1 API prefix. */
export const UNVERSIONED_PATHS = ['healthz', 'readyz', 'metrics', 'status', '.well-known/jwks.json'];
/** Provider webhooks (D-36): outside /v1, authenticated by the provider's signature. */
export const HOOK_PATHS = ['hooks/github/:connector_id', 'hooks/slack/:connector_id'];
/** The MCP server over streamable HTTP, outside /v1, behind the API's authentication. */
export const MCP_PATHS = ['mcp'];

/** Starts the gateway: the public HTTP API under /v1, on HTTP_PORT. */
export async function startGateway(
  config: GatewayConfig,
  logger: AppLogger = createLogger('gateway', config.LOG_LEVEL, config.INSTANCE_ID),
): Promise<NestFastifyApplication> {
  const metrics = new Metrics('gateway');
  return createHttpApp(GatewayModule.forRoot(config, logger, metrics), {
    config,
    logger,
    metrics,
    bodyLimit: config.BODY_LIMIT_BYTES,
    errors: gatewayErrors(logger),
    configure: configureGateway,
  });
}

/**
 * The API conventions: /v1 prefix (probes, metrics and status outside it),
 * hostile input refused once for every route, global validation, and the D-6 document and reference (GET /openapi.yaml,
 * GET /docs: registered on Fastify directly, so outside the prefix and public), and CORS for the
 * operator-listed browser origins (none by default; ./http/cors.ts), and the web app at `/` (D-44, ./http/web-app.ts).
 */
export async function configureGateway(app: NestFastifyApplication): Promise<void> {
  await registerCors(app, app.get(GatewayConfig).corsAllowedOrigins);
  // D-40: the refresh cookie of the sign-in routes.
  await app.register(fastifyCookie);
  applyApiPrefix(app);
  registerNoStore(app.getHttpAdapter().getInstance());
  registerCredentialScreen(
    app.getHttpAdapter().getInstance(),
    app.get(ApiTokenVerifier),
    app.get(FailedAuthentications),
    app.get(GatewayConfig).OPERATOR_TOKEN,
  );
  registerBodyParsers(app.getHttpAdapter().getInstance(), app.get(GatewayConfig).HOOK_BODY_LIMIT_BYTES);
  registerInputGuard(app.getHttpAdapter().getInstance());
  registerRequestDeadline(app.getHttpAdapter().getInstance(), app.get(GatewayConfig).REQUEST_TIMEOUT_MS);
  app.useGlobalPipes(gatewayValidationPipe());
  mountApiDocs(app, API_PREFIX);
  registerWebApp(app, findWebRoot(app.get(GatewayConfig).WEB_ROOT));
}

/** The /v1 prefix, with the probes, metrics, status and provider webhooks outside it (also used to build the document offline). */
export function applyApiPrefix(app: INestApplication): void {
  app.setGlobalPrefix(API_PREFIX, {
    exclude: [
      ...UNVERSIONED_PATHS.map((path) => ({ path, method: RequestMethod.GET })),
      ...HOOK_PATHS.map((path) => ({ path, method: RequestMethod.POST })),
      ...MCP_PATHS.flatMap((path) => [RequestMethod.POST, RequestMethod.GET, RequestMethod.DELETE].map((method) => ({ path, method }))),
    ],
  });
}
