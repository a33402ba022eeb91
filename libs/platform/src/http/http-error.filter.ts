import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppLogger } from '../logging/logger';
import { toErrorResponse } from './error-response';

/** The one filter: every error a request can meet leaves as the D-1 envelope. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: AppLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    sendError(this.logger, exception, request, reply);
  }
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
