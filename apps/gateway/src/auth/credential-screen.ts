import type { FastifyInstance } from 'fastify';
import { isOperatorCredential } from '@worktrack/platform';
import { isApiRoute, isHookRoute, isOperatorRoute } from '../edge/routes';
import type { FailedAuthentications } from '../rate-limit/failed-authentications';
import type { ApiTokenVerifier } from './api-token.verifier';
import { BEARER } from './api-token.verifier';
import { operatorCredentialNeeded, unauthenticated } from './auth.errors';

/** Routes where a request can fail authentication: the API, provider hooks, operator endpoints, the MCP server. */
const isGuarded = (route: string): boolean => isApiRoute(route) || isHookRoute(route) || isOperatorRoute(route) || route === '/mcp';

/**
 * D-37, an onRequest hook (before the body is read and before any guard):
 * every request on a guarded route is watched, and its response recorded
 * against its client address when it is a failed authentication. A
 * credential that is certainly refused without a round trip — a malformed
 * bearer, an API token the registry does not know or knows revoked, a wrong
 * operator credential — is answered here, 401 or, past the address' limit,
 * 429. Everything else goes on: valid credentials are never judged by their
 * address, and the auth guard, the operator guard and the hooks' signature
 * checks answer their own failures through the same `FailedAuthentications`.
 */
export function registerCredentialScreen(
  fastify: FastifyInstance,
  verifier: ApiTokenVerifier,
  failures: FailedAuthentications,
  operatorToken: string,
): void {
  fastify.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url ?? '';
    if (!isGuarded(route)) return;
    failures.watch(request, reply, route);
    const header = request.headers.authorization;
    if (isOperatorRoute(route)) {
      if (operatorToken !== '' && !isOperatorCredential(header, operatorToken))
        await failures.refuse(request, reply, operatorCredentialNeeded());
      return;
    }
    if (header === undefined || isHookRoute(route)) return;
    const match = typeof header === 'string' ? BEARER.exec(header.trim()) : null;
    if (!match || (await verifier.certainlyRefused(match[1]))) await failures.refuse(request, reply, unauthenticated());
  });
}
