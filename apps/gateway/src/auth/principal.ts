import type { MemberProfileV1 } from '@worktrack/contracts';

/** D-9 token scopes. */
export const SCOPES = ['full', 'report_only'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * Who a request acts as, set on the request by the auth guard: always an
 * active member of its workspace as identity knows it (issue 14), ids in
 * canonical lower case.
 */
export interface Principal {
  memberId: string;
  workspaceId: string;
  scope: Scope;
  credential: 'api_token' | 'jwt';
  /** The API token's public id (D-8), when the credential is a token. */
  tokenId?: string;
  /** The browser session of a worktrack session JWT (D-40). */
  sid?: string;
  /** The member's profile as identity answered (or the feed updated) it; carried with every command. */
  profile?: MemberProfileV1;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}
