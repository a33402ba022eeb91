import { RequestMethod, type INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp, createLogger, Metrics, type AppLogger } from '@worktrack/platform';
import { registerEdge } from './edge/edge';
import { API_PREFIX } from './edge/routes';
import { GatewayConfig } from './gateway.config';
import { GatewayModule } from './gateway.module';
import { gatewayErrors } from './http/error-envelope';
import { WEB_APP_PATHS } from './http/web-app';
import { mountApiDocs } from './openapi/openapi';

export { API_PREFIX };

/** Paths served outside the /v1 API prefix. */
export const UNVERSIONED_PATHS = ['healthz', 'readyz', 'metrics', 'status', '.well-known/jwks.json'];
/** Provider webhooks (D-36): outside /v1, authenticated by the provider's signature. */
export const HOOK_PATHS = ['hooks/github/:connector_id', 'hooks/slack/:connector_id'];
/** The MCP server over streamable HTTP, outside /v1, behind the API's authentication. */
export const MCP_PATHS = ['mcp'];
/** Public pages outside /v1: the API reference and its files (D-6), the web app (D-44). */
const PAGE_PATHS = ['docs', 'docs/:file', ...WEB_APP_PATHS];

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
 * Before the routes are registered: the edge, every hook a request meets in
 * its order (./edge/edge.ts); the /v1 prefix (probes, metrics, status, hooks,
 * MCP and the public pages outside it); and the D-6 document at GET /openapi.yaml.
 */
export async function configureGateway(app: NestFastifyApplication): Promise<void> {
  await registerEdge(app);
  applyApiPrefix(app);
  mountApiDocs(app, API_PREFIX);
}

/** The /v1 prefix, with the probes, metrics, status, provider webhooks, MCP and public pages outside it (also used to build the document offline). */
export function applyApiPrefix(app: INestApplication): void {
  app.setGlobalPrefix(API_PREFIX, {
    exclude: [
      ...UNVERSIONED_PATHS.map((path) => ({ path, method: RequestMethod.GET })),
      ...HOOK_PATHS.map((path) => ({ path, method: RequestMethod.POST })),
      ...MCP_PATHS.flatMap((path) => [RequestMethod.POST, RequestMethod.GET, RequestMethod.DELETE].map((method) => ({ path, method }))),
      ...PAGE_PATHS.map((path) => ({ path, method: RequestMethod.GET })),
    ],
  });
}
