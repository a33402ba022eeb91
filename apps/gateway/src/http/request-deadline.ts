import type { FastifyInstance } from 'fastify';
import { requestDeadline } from '@worktrack/platform';

/**
 * D-2 ("never a hang"): each request is answered within
 * REQUEST_TIMEOUT_MS of its body having arrived, however many commands it
 * sends one after another (a token or member lookup, then the command). The
 * deadline is set once the request is parsed, for everything that serves it;
 * the command client shortens each command's wait to what is left, and a
 * command that would start past it is UNAVAILABLE (503, Retry-After) at once.
 */
export function registerRequestDeadline(fastify: FastifyInstance, timeoutMs: number): void {
  fastify.addHook('preHandler', (_request, _reply, done) => {
    requestDeadline.run(Date.now() + timeoutMs, done);
  });
}
