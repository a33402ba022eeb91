/** D-9 token scopes. */
export const SCOPES = ['full', 'report_only'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * Who a request acts as, set on the request by the auth guard (API token via
 * the identity service's verification, or a session JWT verified locally).
 */
export interface Principal {
  memberId: string;
  workspaceId: string;
  scope: Scope;
  credential: 'api_token' | 'jwt';
  /** The API token's public id (D-8), when the credential is a token. */
  tokenId?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}
