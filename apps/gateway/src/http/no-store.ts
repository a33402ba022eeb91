import type { FastifyInstance } from 'fastify';
import { isApiRoute } from '../edge/routes';

/** Answers that carry member or system data: the API and the operator status. */
const isPrivate = (route: string): boolean => isApiRoute(route) || route === '/status';

/**
 * Member data must not be kept by browsers, proxies or CDNs. Every
 * /v1 answer (and /status) carries `Cache-Control: no-store`, set as the
 * request arrives, so refusals by the limits and guards carry it as well as
 * the handlers' answers and errors. A Fastify hook rather than a Nest
 * interceptor (ADR 0012): with no interceptor, Nest runs no RxJS
 * pipeline and binds no async resource per request.
 */
export function registerNoStore(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    if (isPrivate(request.routeOptions.url ?? '')) void reply.header('Cache-Control', 'no-store');
    done();
  });
}
