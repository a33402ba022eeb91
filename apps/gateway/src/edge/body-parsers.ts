import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { isHookRoute } from './routes';

const RAW = Symbol('worktrack.rawBody');
type WithRaw = FastifyRequest & { [RAW]?: Buffer };

/** Webhook routes: their signatures cover the exact bytes, so these bodies are kept unparsed. */
const isHook = (request: FastifyRequest): boolean => isHookRoute(request.url);

/** GitHub delivers up to 25 MB; the API keeps its own, smaller limit. */
export const DEFAULT_HOOK_BODY_LIMIT_BYTES = 25 * 1024 * 1024;

/** The largest declared body an oversize request may still send after its 413 (read and discarded). */
export const OVERSIZE_DRAIN_BYTES = 64 * 1024 * 1024;

/** True when a refused body's declared length is small enough to read to its end rather than cut off. */
export function drainsAfterRefusal(contentLength: string | undefined): boolean {
  if (contentLength === undefined || !/^\d{1,12}$/.test(contentLength)) return false;
  return Number(contentLength) <= OVERSIZE_DRAIN_BYTES;
}

/**
 * The gateway's one body parser, for every route: JSON by Fastify's own
 * parser (its INVALID_JSON errors; prototype keys are the input guard's);
 * for `/hooks/…` the raw bytes are kept and not parsed here (the hook
 * controller verifies the provider's signature over them, the connectors
 * service parses), and GitHub's form-encoded deliveries are accepted there
 * too. Everything else stays 415 UNSUPPORTED_MEDIA_TYPE.
 * The hook routes get their own body limit (`hookBodyLimit`, 413 above it);
 * must be called before the routes are registered (Nest registers them at init).
 */
export function registerBodyParsers(fastify: FastifyInstance, hookBodyLimit = DEFAULT_HOOK_BODY_LIMIT_BYTES): void {
  fastify.addHook('onRoute', (route) => {
    if (isHookRoute(route.url)) route.bodyLimit = hookBodyLimit;
  });
  // Prototype keys are left to the input guard (http/input-guard.ts), which refuses them with
  // PROTOTYPE_POISONING and a path; this parser would only say INVALID_JSON.
  const json = fastify.getDefaultJsonParser('ignore', 'ignore');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (isHook(request)) {
      (request as WithRaw)[RAW] = body as Buffer;
      done(null, {});
      return;
    }
    void json(request, (body as Buffer).toString('utf8'), done);
  });
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (request, body, done) => {
    if (!isHook(request)) {
      done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE('application/x-www-form-urlencoded'), undefined);
      return;
    }
    (request as WithRaw)[RAW] = body as Buffer;
    done(null, {});
  });
  // A body over the limit is answered 413 before it is read, and Fastify then closes the connection. Closing with the
  // upload unread makes the kernel reset the connection while the client is still sending, and the reset can discard
  // the 413 before the client reads it: the client sees EPIPE or ECONNRESET instead of the answer. A declared length
  // up to OVERSIZE_DRAIN_BYTES is therefore read to its end and discarded (Node drains an unread request once its
  // response has ended) and the connection stays open; a larger or undeclared one is still cut off.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode === 413 && drainsAfterRefusal(request.headers['content-length'])) reply.removeHeader('connection');
    done(null, payload);
  });
}

/** The body of a `/hooks/…` request exactly as received (empty when there was none). */
export const rawBodyOf = (request: FastifyRequest): Buffer => (request as WithRaw)[RAW] ?? Buffer.alloc(0);
