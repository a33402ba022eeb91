import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DynamicModule, INestApplicationContext, Type } from '@nestjs/common';
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { AppConfig } from '../config/base.config';
import { ReadinessService } from '../health/readiness.service';
import { HttpErrorFilter, sendError } from '../http/http-error.filter';
import { logContext, NestPinoLogger, type AppLogger } from '../logging/logger';
import type { Metrics } from '../metrics/metrics';

const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** D-4: echo a sane client request id, else make one. */
export function requestIdOf(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers['x-request-id'];
  const value = Array.isArray(given) ? given[0] : given;
  return value !== undefined && REQUEST_ID.test(value) ? value : randomUUID();
}

type ErrorHandler = (error: unknown, request: FastifyRequest, reply: FastifyReply) => void;

/**
 * Nest installs a Fastify error handler that re-wraps Fastify's errors (bad
 * JSON, body size, media type) as bare HttpExceptions, dropping their codes.
 * This adapter installs ours in its place, so those errors keep their D-2 code.
 */
class EnvelopeFastifyAdapter extends FastifyAdapter {
  constructor(
    private readonly onError: ErrorHandler,
    options: FastifyServerOptions,
  ) {
    super(options);
  }

  override setErrorHandler(): ReturnType<FastifyAdapter['setErrorHandler']> {
    return this.getInstance().setErrorHandler((error, request, reply) => this.onError(error, request, reply));
  }
}

export interface HttpAppOptions {
  config: AppConfig;
  logger: AppLogger;
  metrics: Metrics;
  /** Largest request body in bytes (413 PAYLOAD_TOO_LARGE above). */
  bodyLimit?: number;
  /** Runs after the app is created and before it listens (prefix, pipes, docs). */
  configure?: (app: NestFastifyApplication) => void | Promise<void>;
}

/**
 * Creates a Nest app on Fastify with the platform's HTTP conventions: request
 * ids in every response and log line, JSON-only bodies, the D-1 error
 * envelope for every failure (including Fastify's own: bad JSON, size, media
 * type, unknown routes), request metrics. Listens on HTTP_PORT and marks the
 * app ready.
 */
export async function createHttpApp(module: Type | DynamicModule, options: HttpAppOptions): Promise<NestFastifyApplication> {
  const { config, logger, metrics } = options;
  const adapter = new EnvelopeFastifyAdapter((error, request, reply) => sendError(logger, error, request, reply), {
    bodyLimit: options.bodyLimit ?? 1_048_576,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => requestIdOf(req),
    requestIdHeader: false,
    logger: false,
    return503OnClosing: true,
  });
  const fastify = adapter.getInstance();
  fastify.removeContentTypeParser(['text/plain']);
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    logContext.run({ requestId: request.id }, done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    metrics.httpRequestDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, seconds);
    logger.info(
      { requestId: request.id, method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
    done();
  });

  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, {
    logger: new NestPinoLogger(logger),
    abortOnError: false,
    // JSON only: Fastify's own JSON parser stays; Nest's form parser is not added.
    bodyParser: false,
  });
  app.useGlobalFilters(new HttpErrorFilter(logger));
  await options.configure?.(app);
  await app.listen(config.HTTP_PORT, '0.0.0.0');
  app.get(ReadinessService).setAccepting(true);
  logger.info({ port: boundPort(app) }, 'listening');
  return app;
}

export function boundPort(app: NestFastifyApplication): number {
  const address = app.getHttpServer().address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

/**
 * SIGTERM/SIGINT drain: stop being ready, let Nest stop consumers (they
 * finish in-flight messages and commit), close HTTP (in-flight requests
 * finish, new ones get 503), close connections, exit 0. Exits 1 if draining
 * outlasts SHUTDOWN_TIMEOUT_MS.
 */
export function drainOnSignals(app: INestApplicationContext, config: AppConfig, logger: AppLogger): void {
  let draining = false;
  const drain = (signal: NodeJS.Signals): void => {
    if (draining) return;
    draining = true;
    logger.info({ signal }, 'draining');
    app.get(ReadinessService).setAccepting(false);
    const force = setTimeout(() => {
      logger.error({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, 'drain timed out; exiting');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    app
      .close()
      .then(() => {
        logger.info('stopped');
        logger.flush();
        process.exit(0);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'error while draining');
        process.exit(1);
      });
  };
  process.once('SIGTERM', drain);
  process.once('SIGINT', drain);
}
