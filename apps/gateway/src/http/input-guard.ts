import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorCode, findUnsafeInput, type UnsafeInput } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/**
 * Hostile input, refused once for every route at the edge, before any DTO or
 * handler sees the request:
 *
 * - a body with a `Content-Encoding` other than `identity` is 415 (the
 *   gateway decodes none; parsing compressed bytes as JSON would only be a
 *   misleading INVALID_JSON);
 * - body, query and path parameters are walked once (`findUnsafeInput`):
 *   NUL, lone surrogates and nesting deeper than MAX_JSON_DEPTH are 400
 *   VALIDATION_FAILED naming every field; `__proto__` (or `constructor`
 *   holding `prototype`) anywhere is 400 PROTOTYPE_POISONING. The JSON
 *   parser refuses such keys in a body itself (mapped to the same code).
 */
export function registerInputGuard(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && hasBody(request) && !isIdentity(encoding)) {
      done(new DomainError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'Content-Encoding is not supported: send the body uncompressed.'));
      return;
    }
    done();
  });
  fastify.addHook('preValidation', (request, _reply, done) => {
    const found = unsafeParts(request);
    done(found.length === 0 ? undefined : refusal(found));
  });
}

const hasBody = (request: FastifyRequest): boolean =>
  request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] ?? '0') !== '0';

const isIdentity = (header: string | string[]): boolean =>
  (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .every((s) => s === '' || s === 'identity');

/** The request's parsed parts: a body value's paths as the validation pipe names them; query and path fields by name. */
function unsafeParts(request: FastifyRequest): UnsafeInput[] {
  return [...findUnsafeInput(request.params), ...findUnsafeInput(request.query), ...findUnsafeInput(request.body)];
}

function refusal(found: UnsafeInput[]): DomainError {
  const details = found.map(({ path, issue }) => ({ path: path === '' ? '(body)' : path, issue }));
  if (found.some((f) => f.kind === 'prototype')) {
    return new DomainError(
      ErrorCode.PROTOTYPE_POISONING,
      'The request holds a key that could alter object prototypes (__proto__, constructor.prototype).',
      details.filter((_, i) => found[i].kind === 'prototype'),
    );
  }
  return new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', details);
}
