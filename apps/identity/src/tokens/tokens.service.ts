import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ErrorCode, type ActorV1, type ApiTokenV1, type CreatedTokenV1, type TokenScope } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';
import { IdentityEvents } from '../events/identity-events';
import type { MemberEntity } from '../members/entities/member.entity';
import { MembersRepository } from '../members/members.repository';
import type { ApiTokenEntity } from './entities/api-token.entity';
import { hashesMatch, newTokenParts, sha256 } from './token-secret';
import { TokensRepository } from './tokens.repository';

const unauthenticated = (): DomainError => new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credential.');

export const toApiTokenV1 = (t: ApiTokenEntity): ApiTokenV1 => ({
  tokenId: t.id,
  name: t.name,
  scope: t.scope,
  createdAt: t.createdAt.toISOString(),
  lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
  revokedAt: t.revokedAt?.toISOString() ?? null,
});

/** API tokens (D-8, D-10): minted once, verified in constant time, revoked with an event. */
@Injectable()
export class TokensService {
  constructor(
    private readonly tokens: TokensRepository,
    private readonly members: MembersRepository,
    private readonly events: IdentityEvents,
  ) {}

  /** Creates a token for `member` inside the caller's transaction; the full token is returned only here. */
  async mint(manager: EntityManager, member: MemberEntity, name: string, scope: TokenScope): Promise<CreatedTokenV1> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const { tokenId, secret, token } = newTokenParts();
      const free = await this.tokens.insertIfFree(manager, {
        id: tokenId,
        workspaceId: member.workspaceId,
        memberId: member.id,
        name,
        scope,
        secretHash: sha256(secret),
      });
      if (free) {
        const now = new Date().toISOString();
        return { tokenId, name, scope, createdAt: now, lastUsedAt: null, revokedAt: null, token };
      }
    }
    throw new Error('could not draw a free token id in 5 attempts');
  }

  async verify(tokenId: string, secretSha256: string): Promise<ActorV1> {
    const token = await this.tokens.findById(tokenId);
    // Compare even when the id is unknown, so timing does not tell ids apart.
    const stored = token?.secretHash ?? sha256('');
    const matches = hashesMatch(stored, secretSha256);
    if (!token || !matches || token.revokedAt) throw unauthenticated();
    void this.tokens.touch(token.id, new Date()).catch(() => undefined);
    return { memberId: token.memberId, workspaceId: token.workspaceId, scope: token.scope, credential: 'api_token', tokenId: token.id };
  }

  async create(actor: ActorV1, name: string, scope: TokenScope): Promise<CreatedTokenV1> {
    return this.members.transaction(async (manager) => {
      const member = await this.members.findInWorkspace(actor.workspaceId, actor.memberId, manager);
      if (!member) throw unauthenticated();
      return this.mint(manager, member, name, scope);
    });
  }

  /**
   * D-36: a connector writes as `memberId` with a report_only token (D-9). The
   * caller may name themself, or — as an owner or admin with a full
   * credential — another member of the workspace (a member of another
   * workspace is a missing one, D-7).
   */
  async issueConnectorCredential(actor: ActorV1, memberId: string, name: string): Promise<CreatedTokenV1> {
    return this.members.transaction(async (manager) => {
      const caller = await this.members.findInWorkspace(actor.workspaceId, actor.memberId, manager);
      if (!caller) throw unauthenticated();
      const target = memberId === caller.id ? caller : await this.members.findInWorkspace(actor.workspaceId, memberId, manager);
      if (!target) {
        throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', [
          { path: 'member_id', issue: 'no member with this id in your workspace' },
        ]);
      }
      if (target.id !== caller.id && (actor.scope !== 'full' || (caller.role !== 'owner' && caller.role !== 'admin'))) {
        throw new DomainError(ErrorCode.FORBIDDEN, 'Only an owner or admin may connect a provider for another member.');
      }
      return this.mint(manager, target, name, 'report_only');
    });
  }

  async list(actor: ActorV1): Promise<ApiTokenV1[]> {
    return (await this.tokens.listOwn(actor.workspaceId, actor.memberId)).map(toApiTokenV1);
  }

  /** Idempotent: revoking a revoked token returns it unchanged. Another member's token is a missing one. */
  async revoke(actor: ActorV1, tokenId: string): Promise<ApiTokenV1> {
    const { token, revoked } = await this.members.transaction(async (manager) => {
      const found = await this.tokens.findOwn(manager, actor.workspaceId, actor.memberId, tokenId);
      if (!found) throw new DomainError(ErrorCode.NOT_FOUND, `No token ${tokenId}.`);
      if (found.revokedAt) return { token: found, revoked: false };
      found.revokedAt = new Date();
      await this.tokens.markRevoked(manager, found.id, found.revokedAt);
      await this.events.tokenRevoked(manager, {
        tokenId: found.id,
        memberId: found.memberId,
        workspaceId: found.workspaceId,
        revokedAt: found.revokedAt.toISOString(),
      });
      return { token: found, revoked: true };
    });
    if (revoked) this.events.published();
    return toApiTokenV1(token);
  }
}
