import { HttpException } from '@nestjs/common';
import { ErrorCode, httpStatusOf, type ErrorBody } from '@worktrack/contracts';
import { DomainError, isDomainError, isTransientInfrastructureError, TRANSIENT_MESSAGE } from '@worktrack/platform';

export { httpStatusOf };

export interface ErrorResponse {
  status: number;
  body: { error: ErrorBody };
  /** True when the cause is ours (a 5xx to log with its stack). */
  internal: boolean;
}

/** The response of a D-2 code, its message and details. */
export const respond = (code: ErrorCode, message: string, details?: ErrorBody['details']): ErrorResponse => ({
  status: httpStatusOf(code),
  body: { error: new DomainError(code, message, details).toBody() },
  internal: code === ErrorCode.INTERNAL,
});

/** Fastify's own errors (body parsing, media type, size) by their codes. */
function fromFrameworkError(err: { code?: unknown; statusCode?: unknown }): ErrorResponse | undefined {
  const code = typeof err.code === 'string' ? err.code : '';
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return respond(ErrorCode.PAYLOAD_TOO_LARGE, 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return respond(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'Requests with a body must use Content-Type application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return respond(ErrorCode.INVALID_JSON, 'The request body does not match its Content-Length.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return respond(ErrorCode.INVALID_JSON, 'The request body is empty but Content-Type is application/json.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return respond(ErrorCode.INVALID_JSON, 'The request body is not valid JSON.');
    case 'FST_ERR_BAD_URL':
      return respond(ErrorCode.VALIDATION_FAILED, 'The request path is not valid percent-encoded UTF-8.', [
        { path: '(path)', issue: 'must be valid percent-encoded UTF-8' },
      ]);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return respond(ErrorCode.VALIDATION_FAILED, 'A path parameter is too long.', [
        { path: '(path)', issue: 'a path parameter is longer than any id this API issues' },
      ]);
    default:
      break;
  }
  // Prototype keys never reach a parser that refuses them: the gateway's input guard answers PROTOTYPE_POISONING.
  if (err.statusCode === 400 && (code.startsWith('FST_ERR_CTP') || (err as Error).name === 'SyntaxError')) {
    return respond(ErrorCode.INVALID_JSON, 'The request body is not valid JSON.');
  }
  return undefined;
}

/**
 * Turns anything thrown while serving a request into the D-1 envelope.
 * Internal errors get a generic message naming the request id: no stack, no
 * driver message ever reaches a client.
 */
export function toErrorResponse(err: unknown, requestId: string): ErrorResponse {
  if (isDomainError(err)) return respond(err.code, err.message, err.details);
  if (typeof err === 'object' && err !== null) {
    const framework = fromFrameworkError(err);
    if (framework) return framework;
  }
  if (err instanceof HttpException) {
    switch (err.getStatus()) {
      case 404:
        return respond(ErrorCode.NOT_FOUND, 'No such route.');
      case 405:
        return respond(ErrorCode.NOT_FOUND, 'No such route for this method.');
      case 413:
        return respond(ErrorCode.PAYLOAD_TOO_LARGE, 'The request body is too large.');
      case 415:
        return respond(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'Unsupported Content-Type.');
      case 401:
        return respond(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credential.');
      case 403:
        return respond(ErrorCode.FORBIDDEN, 'Not allowed.');
      case 400:
        return respond(ErrorCode.VALIDATION_FAILED, 'The request is invalid.');
      default:
        break;
    }
  }
  if (isTransientInfrastructureError(err)) return respond(ErrorCode.UNAVAILABLE, TRANSIENT_MESSAGE);
  return respond(ErrorCode.INTERNAL, `Internal error (request id ${requestId}).`);
}
