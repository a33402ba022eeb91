import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { isHookRoute } from './routes';

const RAW = Symbol('worktrack.rawBody');
type WithRaw = FastifyRequest & { [RAW]?: Buffer };

/** Webhook routes: their signatures cover the exact bytes, so these bodies are kept unparsed. */
const isHook = (request: FastifyRequest): boolean => isHookRoute(request.url);

/** GitHub delivers up to 25 MB; the API keeps its own, smaller limit. */
export const DEFAULT_HOOK_BODY_LIMIT_BYTES = 25 * 1024 * 1024;

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
}

/** The body of a `/hooks/…` request exactly as received (empty when there was none). */
export const rawBodyOf = (request: FastifyRequest): Buffer => (request as WithRaw)[RAW] ?? Buffer.alloc(0);
