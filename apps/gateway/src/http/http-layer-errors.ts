import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { ErrorCode } from '@worktrack/contracts';
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { AppLogger } from '@worktrack/platform';
import { respond, type ErrorResponse } from './error-response';
import { sendError } from './error-envelope';

/**
 * Errors met before a request reaches a route: they still leave
 * in the D-1 envelope with an `x-request-id`.
 *
 * - Fastify's router errors (malformed percent-encoding in the path, a path
 *   parameter over `maxParamLength`) go through the one error mapping.
 * - Node's HTTP parser errors (headers over the size limit, a method it does
 *   not know, a malformed request line) never become a request: the answer
 *   is written on the socket, which is then closed.
 */
export function httpLayerErrorOptions(logger: AppLogger): Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> {
  return {
    frameworkErrors: (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
      // The onRequest hook that sets it does not run for these.
      void reply.header('x-request-id', request.id);
      sendError(logger, error, request, reply);
    },
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => writeClientError(logger, error, socket),
  };
}

/** What a parser error of Node's HTTP server means to a client. */
export function clientErrorBody(code: string | undefined): ErrorResponse {
  switch (code ?? '') {
    case 'HPE_HEADER_OVERFLOW':
      // D-2: 413 is for the whole request being too large; the headers are part of it.
      return respond(ErrorCode.PAYLOAD_TOO_LARGE, 'The request headers are too large.');
    case 'HPE_INVALID_METHOD':
      return respond(ErrorCode.NOT_FOUND, 'No such route for this method.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return respond(ErrorCode.VALIDATION_FAILED, 'The request did not arrive in time.');
    default:
      return respond(ErrorCode.VALIDATION_FAILED, 'The request is not valid HTTP/1.1.');
  }
}

function writeClientError(logger: AppLogger, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const requestId = randomUUID();
  const { status, body } = clientErrorBody(error.code);
  logger.info({ requestId, code: error.code, status }, 'client error');
  if (socket.writable) {
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${reason(status)}\r\n` +
        `content-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(text)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
        `cache-control: no-store\r\n` +
        `connection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy();
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 413: 'Content Too Large' };
const reason = (status: number): string => REASONS[status] ?? 'Error';
