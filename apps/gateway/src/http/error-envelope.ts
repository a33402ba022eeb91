import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppLogger, HttpErrorHandling } from '@worktrack/platform';
import { toErrorResponse } from './error-response';
import { httpLayerErrorOptions } from './http-layer-errors';

/**
 * The gateway's one error mapping (D-1, D-2): every error a request can meet —
 * a route's, Fastify's own (bad JSON, size, media type), the router's and the
 * HTTP parser's — leaves as the D-1 envelope.
 */
export function gatewayErrors(logger: AppLogger): HttpErrorHandling {
  return { send: (error, request, reply) => sendError(logger, error, request, reply), fastify: httpLayerErrorOptions(logger) };
}

export function sendError(logger: AppLogger, exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { status, body, internal } = toErrorResponse(exception, request.id);
  if (internal) {
    logger.error({ err: exception, requestId: request.id, method: request.method, url: request.url }, 'internal error');
  } else if (status >= 500) {
    logger.warn({ requestId: request.id, code: body.error.code, message: body.error.message }, 'dependency unavailable');
  }
  if (reply.sent) return;
  void reply.status(status).header('content-type', 'application/json; charset=utf-8').send(body);
}
