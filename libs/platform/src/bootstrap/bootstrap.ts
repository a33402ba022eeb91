import { isStartupRefusal } from './startup-refusal';
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  Catch,
  HttpException,
  type ArgumentsHost,
  type DynamicModule,
  type ExceptionFilter,
  type INestApplicationContext,
  type Type,
} from '@nestjs/common';
import type { CustomTransportStrategy } from '@nestjs/microservices';
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { ErrorCode, type ErrorBody } from '@worktrack/contracts';
import { within } from '../async/within';
import type { AppConfig } from '../config/base.config';
import { isDomainError } from '../errors/domain-error';
import { ReadinessService } from '../health/readiness.service';
import { logContext, NestPinoLogger, type AppLogger } from '../logging/logger';
import type { Metrics } from '../metrics/metrics';
import { KafkaClient } from '../kafka/kafka.client';
import { dependenciesOf, StartingProbes, startupBackoffMs, waitForDependencies } from './dependencies';
import { stopTracing } from '../tracing/start-tracing';
import { withRequestTrace } from '../tracing/tracing';

const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** D-4: echo a sane client request id, else make one. */
export function requestIdOf(req: { headers: Record<string, string | string[] | undefined> }): string {
  const given = req.headers['x-request-id'];
  const value = Array.isArray(given) ? given[0] : given;
  return value !== undefined && REQUEST_ID.test(value) ? value : randomUUID();
}

type ErrorHandler = (error: unknown, request: FastifyRequest, reply: FastifyReply) => void;

/** How an app answers what a request fails on: Nest's errors and Fastify's own go to `send`; `fastify` adds server options (the gateway's HTTP-layer errors). */
export interface HttpErrorHandling {
  send: ErrorHandler;
  fastify?: Partial<FastifyServerOptions>;
}

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

/** Every error a route meets goes to the app's `send`. */
@Catch()
class SendErrorFilter implements ExceptionFilter {
  constructor(private readonly send: ErrorHandler) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.send(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}

const PROBE_STATUS: Partial<Record<ErrorCode, number>> = { [ErrorCode.UNAUTHENTICATED]: 401, [ErrorCode.UNAVAILABLE]: 503 };

/**
 * A service's errors over HTTP, where it serves only /healthz, /readyz and
 * /metrics: D-1 envelopes for what those raise (UNAVAILABLE, UNAUTHENTICATED)
 * and for unknown routes, INTERNAL with the request id for anything else. The
 * gateway brings the whole D-2 mapping (apps/gateway/src/http).
 */
function probeErrors(logger: AppLogger): HttpErrorHandling {
  const answer = (err: unknown, requestId: string): { status: number; error: ErrorBody } => {
    if (isDomainError(err) && PROBE_STATUS[err.code]) return { status: PROBE_STATUS[err.code] as number, error: err.toBody() };
    const status = err instanceof HttpException ? err.getStatus() : (err as { statusCode?: unknown }).statusCode;
    if (status === 404 || status === 405) return { status: 404, error: { code: ErrorCode.NOT_FOUND, message: 'No such route.' } };
    return { status: 500, error: { code: ErrorCode.INTERNAL, message: `Internal error (request id ${requestId}).` } };
  };
  return {
    send: (err, request, reply) => {
      const { status, error } = answer(err, request.id);
      if (status === 500) logger.error({ err, requestId: request.id, method: request.method, url: request.url }, 'internal error');
      if (!reply.sent) void reply.status(status).header('content-type', 'application/json; charset=utf-8').send({ error });
    },
  };
}

export interface HttpAppOptions {
  config: AppConfig;
  logger: AppLogger;
  metrics: Metrics;
  /** Largest request body in bytes (413 PAYLOAD_TOO_LARGE above). */
  bodyLimit?: number;
  /** Runs after the app is created and before it listens (prefix, pipes, docs). */
  configure?: (app: NestFastifyApplication) => void | Promise<void>;
  /**
   * Nest's own log lines (start-up, route mapping, its exception handler).
   * Nest keeps one logger per process, the last app's: a process hosting
   * several services gives them all one process-wide logger. Default: `logger`.
   */
  nestLogger?: AppLogger;
  /** The D-1 envelope for every failure; services default to their probe routes' (`probeErrors`), the gateway brings its own. */
  errors?: HttpErrorHandling;
  /** The app's message transport (`connectMicroservice({ strategy })`), started after init and before the app listens. */
  microservice?: (app: NestFastifyApplication) => CustomTransportStrategy;
}

/** Start-up attempts once the dependencies answered, before giving up (exit 1). */
const START_ATTEMPTS = 10;

/** Retry-After on a 503: how soon a client may try again (D-2 UNAVAILABLE). */
export const RETRY_AFTER_SECONDS = 1;

/** An access log line is info at or above this duration (or for a failure); debug otherwise. */
const SLOW_REQUEST_MS = 1_000;

/**
 * Creates a Nest app on Fastify with the platform's HTTP conventions: request
 * ids in every response and log line, JSON-only bodies, the D-1 error
 * envelope for every failure (including Fastify's own: bad JSON, size, media
 * type, unknown routes), request metrics. Listens on HTTP_PORT and marks the
 * app ready.
 */
export async function createHttpApp(module: Type | DynamicModule, options: HttpAppOptions): Promise<NestFastifyApplication> {
  const { config, logger } = options;
  // Dependencies are waited for (not ready meanwhile), never a reason to exit.
  const probes = new StartingProbes();
  await probes.listen(config.HTTP_PORT);
  let app: NestFastifyApplication | undefined;
  // Metrics the app's providers add are registered again by the next attempt's providers.
  const baseMetrics = new Set(options.metrics.registry.getMetricsAsArray().map((m) => m.name));
  try {
    for (let attempt = 1; !app; attempt++) {
      // Kafka, and Postgres for a ServiceConfig.
      await waitForDependencies(dependenciesOf(config), logger, probes);
      let candidate: NestFastifyApplication | undefined;
      try {
        candidate = await createNestApp(module, options);
        if (options.microservice) candidate.connectMicroservice({ strategy: options.microservice(candidate) });
        await candidate.init();
        await candidate.startAllMicroservices();
        app = candidate;
      } catch (err) {
        // A dependency lost between its check and the app's start (or topics not created yet);
        // a StartupRefusal (the app's own wiring) is not tried again.
        if (candidate) await within(candidate.close(), 10_000).catch(() => undefined);
        if (attempt >= START_ATTEMPTS || isStartupRefusal(err)) throw err;
        for (const m of options.metrics.registry.getMetricsAsArray()) {
          if (!baseMetrics.has(m.name)) options.metrics.registry.removeSingleMetric(m.name);
        }
        const delay = startupBackoffMs(attempt);
        logger.warn({ err, attempt, retryInMs: delay }, 'start-up failed; retrying');
        probes.waitingFor = { app: err instanceof Error ? err.message : String(err) };
        await sleep(delay);
      }
    }
  } finally {
    await probes.close();
  }
  await app.listen(config.HTTP_PORT, '0.0.0.0');
  app.get(ReadinessService).setAccepting(true);
  logger.info({ port: boundPort(app) }, 'listening');
  return app;
}

async function createNestApp(module: Type | DynamicModule, options: HttpAppOptions): Promise<NestFastifyApplication> {
  const { logger, metrics } = options;
  const errors = options.errors ?? probeErrors(logger);
  const adapter = new EnvelopeFastifyAdapter(errors.send, {
    bodyLimit: options.bodyLimit ?? 1_048_576,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => requestIdOf(req),
    requestIdHeader: false,
    logger: false,
    return503OnClosing: true,
    ...errors.fastify,
  });
  const fastify = adapter.getInstance();
  fastify.removeContentTypeParser(['text/plain']);
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    // A request the head sampler dropped runs in its unsampled trace (ADR 0020): no spans, the trace id travels on.
    withRequestTrace(request.raw, () => logContext.run({ requestId: request.id }, done));
  });
  // D-2 UNAVAILABLE: every 503 (a dependency away, a deadline passed, draining) says when to come back.
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.statusCode === 503 && !reply.hasHeader('retry-after')) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    done(null, payload);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    metrics.httpRequestDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, seconds);
    // ADR 0012 decision 18: the access log line of a request that succeeded in under a
    // second is debug (LOG_LEVEL=debug); failures and slow requests stay info.
    const level = reply.statusCode >= 400 || reply.elapsedTime >= SLOW_REQUEST_MS ? 'info' : 'debug';
    if (logger.isLevelEnabled(level)) {
      // In the request's trace (a dropped one's too: its response listeners run outside it), for the line's trace_id.
      withRequestTrace(request.raw, () =>
        logger[level](
          { requestId: request.id, method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
          'request',
        ),
      );
    }
    done();
  });

  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, {
    logger: new NestPinoLogger(options.nestLogger ?? logger),
    abortOnError: false,
    // JSON only: Fastify's own JSON parser stays; Nest's form parser is not added.
    bodyParser: false,
  });
  app.useGlobalFilters(new SendErrorFilter(errors.send));
  await options.configure?.(app);
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
 *
 * When the app cannot recover by itself (a consumer crashed for
 * good) it drains the same way and exits 1, so that the supervisor
 * (`npm start`) or the orchestrator starts it again.
 *
 * A process hosting several services (WORKTRACK_SERVICES) passes
 * all their apps: a signal drains them together (none ready from the first
 * moment, each closed as above, in parallel), and a crash in any one drains
 * them all and exits 1 — the process restarts as one. `loggers` are flushed
 * before the exit (the hosted services' own, in the order of `apps`); when the
 * drain times out, each app not closed yet is named through its own logger.
 */
export function drainOnSignals(
  apps: INestApplicationContext | INestApplicationContext[],
  config: AppConfig,
  logger: AppLogger,
  loggers: AppLogger[] = [],
): void {
  const all = Array.isArray(apps) ? apps : [apps];
  let draining = false;
  const flush = (): void => {
    for (const l of new Set([...loggers, logger])) l.flush();
  };
  const drain = (reason: { signal: NodeJS.Signals } | { fatal: string }, exitCode: number): void => {
    if (draining) return;
    draining = true;
    if ('fatal' in reason) logger.error({ reason: reason.fatal }, 'cannot recover by itself; draining and exiting');
    else logger.info(reason, 'draining');
    for (const app of all) app.get(ReadinessService).setAccepting(false);
    const open = new Set(all.map((_, i) => i));
    const force = setTimeout(() => {
      // Each app still closing says so through its own logger (a hosted service's carries its name).
      for (const i of open) (loggers[i] ?? logger).error({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, 'app did not close in time');
      logger.error({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, 'drain timed out; exiting');
      flush();
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    Promise.all(all.map((app, i) => app.close().then(() => open.delete(i))))
      // The spans still buffered are exported before exit (a no-op without tracing).
      .then(() => stopTracing())
      .then(() => {
        logger.info({ exitCode }, 'stopped');
        flush();
        process.exit(exitCode);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'error while draining');
        flush();
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => drain({ signal: 'SIGTERM' }, 0));
  process.once('SIGINT', () => drain({ signal: 'SIGINT' }, 0));
  for (const app of all) app.get(KafkaClient).onFatal((fatal) => drain({ fatal }, 1));
}
