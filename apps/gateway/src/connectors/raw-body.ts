import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';

const RAW = Symbol('worktrack.rawBody');
type WithRaw = FastifyRequest & { [RAW]?: Buffer };

/** Webhook routes: their signatures cover the exact bytes, so these bodies are kept unparsed. */
export const HOOKS_PREFIX = '/hooks/';
const isHook = (request: FastifyRequest): boolean => request.url.startsWith(HOOKS_PREFIX);

/**
 * Body parsing for the gateway: JSON as before (Fastify's own parser, with
 * its prototype-poisoning protection and INVALID_JSON errors) for the API;
 * for `/hooks/…` the raw bytes are kept and not parsed here (the connectors
 * service verifies, then parses), and GitHub's form-encoded deliveries are
 * accepted there too. Everything else stays 415 UNSUPPORTED_MEDIA_TYPE.
 */
export function registerBodyParsers(fastify: FastifyInstance): void {
  const json = fastify.getDefaultJsonParser('error', 'error');
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
}

/** The body exactly as received (empty when there was none). */
export const rawBodyOf = (request: FastifyRequest): Buffer => (request as WithRaw)[RAW] ?? Buffer.alloc(0);
