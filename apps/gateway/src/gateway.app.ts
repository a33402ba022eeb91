import { RequestMethod } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp, createLogger, Metrics, type AppLogger } from '@worktrack/platform';
import type { GatewayConfig } from './gateway.config';
import { GatewayModule } from './gateway.module';
import { registerBodyParsers } from './connectors/raw-body';
import { gatewayValidationPipe } from './http/validation.pipe';
import { mountApiDocs } from './openapi/openapi';

/** The API version prefix (D-6 documents the routes under it). */
const API_PREFIX = 'v1';

/** Paths served outside the /v1 API prefix. */
export const UNVERSIONED_PATHS = ['healthz', 'readyz', 'metrics', 'status'];
/** Provider webhooks (D-36): outside /v1, authenticated by the provider's signature. */
export const HOOK_PATHS = ['hooks/github/:connector_id', 'hooks/slack/:connector_id'];

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
    configure: configureGateway,
  });
}

/**
 * The API conventions: /v1 prefix (probes, metrics and status outside it),
 * global validation, and the D-6 document and reference (GET /openapi.yaml,
 * GET /docs: registered on Fastify directly, so outside the prefix and public).
 */
export function configureGateway(app: NestFastifyApplication): void {
  app.setGlobalPrefix(API_PREFIX, {
    exclude: [
      ...UNVERSIONED_PATHS.map((path) => ({ path, method: RequestMethod.GET })),
      ...HOOK_PATHS.map((path) => ({ path, method: RequestMethod.POST })),
    ],
  });
  registerBodyParsers(app.getHttpAdapter().getInstance());
  app.useGlobalPipes(gatewayValidationPipe());
  mountApiDocs(app, API_PREFIX);
}
