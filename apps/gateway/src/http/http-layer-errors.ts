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
      // D-37, RFC 6585: the headers alone are over the limit.
      return respond(ErrorCode.HEADERS_TOO_LARGE, 'The request headers are too large.');
    case 'HPE_INVALID_METHOD':
      return respond(ErrorCode.NOT_FOUND, 'No such route for this method.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return respond(ErrorCode.VALIDATION_FAILED, 'The request did not arrive in time.');
    default:
      return respond(ErrorCode.VALIDATION_FAILED, 'The request is not valid HTTP/1.1.');
  }
}

/** How long, and how many more bytes, a refused connection is drained so the client reads the answer instead of a reset. */
const DRAIN_MS = 2_000;
const DRAIN_BYTES = 1_048_576;

/** Connections already answered: the parser reports its error again for every later chunk of the same request. */
const answered = new WeakSet<Socket>();

function writeClientError(logger: AppLogger, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
  answered.add(socket);
  const requestId = randomUUID();
  const { status, body } = clientErrorBody(error.code);
  logger.info({ requestId, code: error.code, status }, 'client error');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const text = JSON.stringify(body);
  // Closing with the client's bytes still unread would reset the connection and lose the answer (a client
  // still sending a 200 KB header): the answer goes out, then the rest of the request is read and dropped, bounded.
  let drained = 0;
  const timer = setTimeout(() => socket.destroy(), DRAIN_MS);
  timer.unref();
  socket.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_BYTES) socket.destroy();
  });
  socket.once('close', () => clearTimeout(timer));
  socket.end(
    `HTTP/1.1 ${status} ${reason(status)}\r\n` +
      `content-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(text)}\r\n` +
      `x-request-id: ${requestId}\r\n` +
      `cache-control: no-store\r\n` +
      `connection: close\r\n\r\n${text}`,
  );
  socket.resume();
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  413: 'Content Too Large',
  431: 'Request Header Fields Too Large',
};
const reason = (status: number): string => REASONS[status] ?? 'Error';
