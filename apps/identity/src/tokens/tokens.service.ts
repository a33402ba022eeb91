import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  DEFAULT_PAGE_SIZE,
  toMemberProfile,
  type ActorV1,
  type ApiTokenV1,
  type CreatedTokenV1,
  type ListTokensV1,
  type TokenListV1,
  type TokenScope,
} from '@worktrack/contracts';
import { SignedCursor, type CursorScope } from '@worktrack/platform';
import type { IdentityMemberEntity } from '../members/entities/member.entity';
import { toMemberV1 } from '../members/member.mapper';
import { IdentityMembersRepository } from '../members/members.repository';
import { hashesMatch, newTokenParts, sha256 } from './token-secret';
import { TokensPublisher } from './tokens.publisher';
import { toApiTokenV1 } from './token.mapper';
import {
  credentialMemberNotFound,
  onlyOwnerOrAdminConnectsForOthers,
  tokenNotFound,
  unauthenticated,
  unknownTokenId,
} from './tokens.errors';
import { TokensRepository } from './tokens.repository';

/** API tokens (D-8, D-10): minted once, verified in constant time, revoked with an event. */
@Injectable()
export class TokensService {
  constructor(
    private readonly tokens: TokensRepository,
    private readonly members: IdentityMembersRepository,
    private readonly publisher: TokensPublisher,
    private readonly cursors: SignedCursor,
  ) {}

  /** Creates a token for `member` inside the caller's transaction; the full token is returned only here. */
  async mint(
    manager: EntityManager,
    member: IdentityMemberEntity,
    name: string,
    scope: TokenScope,
    expiresAt: Date | null = null,
  ): Promise<CreatedTokenV1> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const { tokenId, secret, token } = newTokenParts();
      const free = await this.tokens.insertIfFree(manager, {
        id: tokenId,
        workspaceId: member.workspaceId,
        memberId: member.id,
        name,
        scope,
        secretHash: sha256(secret),
        expiresAt,
      });
      if (free) {
        const now = new Date().toISOString();
        return {
          tokenId,
          name,
          scope,
          createdAt: now,
          lastUsedAt: null,
          revokedAt: null,
          expiresAt: expiresAt?.toISOString() ?? null,
          token,
        };
      }
    }
    throw new Error('could not draw a free token id in 5 attempts');
  }

  /**
   * The token's actor with its member's profile. A token whose member is
   * deactivated is refused like a revoked one. `unknownId` tells the gateway
   * that no token has this id (it may then refuse the id without asking again).
   */
  async verify(tokenId: string, secretSha256: string): Promise<ActorV1> {
    const token = await this.tokens.findById(tokenId);
    // Compare even when the id is unknown, so timing does not tell ids apart.
    const stored = token?.secretHash ?? sha256('');
    const matches = hashesMatch(stored, secretSha256);
    if (!token) throw unknownTokenId();
    // D-43: an expired token is refused like a revoked one.
    if (!matches || token.revokedAt || (token.expiresAt && token.expiresAt <= new Date())) throw unauthenticated();
    const member = await this.members.findInWorkspace(token.workspaceId, token.memberId);
    if (!member || member.deactivatedAt) throw unauthenticated();
    void this.tokens.touch(token.id, new Date()).catch(() => undefined);
    return {
      memberId: token.memberId,
      workspaceId: token.workspaceId,
      scope: token.scope,
      credential: 'api_token',
      tokenId: token.id,
      profile: toMemberProfile(toMemberV1(member)),
    };
  }

  async create(actor: ActorV1, name: string, scope: TokenScope, expiresInDays?: number): Promise<CreatedTokenV1> {
    const expiresAt = expiresInDays === undefined ? null : new Date(Date.now() + expiresInDays * 86_400_000);
    return this.members.transaction(async (manager) => {
      const member = await this.members.findInWorkspace(actor.workspaceId, actor.memberId, manager);
      if (!member || member.deactivatedAt) throw unauthenticated();
      return this.mint(manager, member, name, scope, expiresAt);
    });
  }

  /** D-43: renames one of the caller's tokens (another member's is a missing one). */
  async rename(actor: ActorV1, tokenId: string, name: string): Promise<ApiTokenV1> {
    const token = await this.members.transaction(async (manager) => {
      const found = await this.tokens.findOwn(manager, actor.workspaceId, actor.memberId, tokenId);
      if (!found) throw tokenNotFound(tokenId);
      found.name = name;
      return manager.save(found);
    });
    return toApiTokenV1(token);
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
      if (!caller || caller.deactivatedAt) throw unauthenticated();
      const target = memberId === caller.id ? caller : await this.members.findInWorkspace(actor.workspaceId, memberId, manager);
      if (!target || target.deactivatedAt) {
        throw credentialMemberNotFound();
      }
      if (target.id !== caller.id && (actor.scope !== 'full' || (caller.role !== 'owner' && caller.role !== 'admin'))) {
        throw onlyOwnerOrAdminConnectsForOthers();
      }
      return this.mint(manager, target, name, 'report_only');
    });
  }

  /** A page of the caller's tokens, newest first (bounded: a member may hold any number of tokens). */
  async list({ actor, limit = DEFAULT_PAGE_SIZE, cursor }: ListTokensV1): Promise<TokenListV1> {
    const scope: CursorScope = { list: 'tokens', owner: actor.memberId };
    const before = this.cursors.createdAtKey(cursor, scope);
    const rows = await this.tokens.listOwn(actor.workspaceId, actor.memberId, limit + 1, before);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      tokens: page.map(toApiTokenV1),
      nextCursor: rows.length > limit && last ? this.cursors.encode([last.createdAt.toISOString(), last.id], scope) : null,
    };
  }

  /** Idempotent: revoking a revoked token returns it unchanged. Another member's token is a missing one. */
  async revoke(actor: ActorV1, tokenId: string): Promise<ApiTokenV1> {
    const token = await this.members.transaction(async (manager) => {
      const found = await this.tokens.findOwn(manager, actor.workspaceId, actor.memberId, tokenId);
      if (!found) throw tokenNotFound(tokenId);
      if (found.revokedAt) return found;
      found.revokedAt = new Date();
      await this.tokens.markRevoked(manager, found.id, found.revokedAt);
      await this.publisher.revoked(manager, {
        tokenId: found.id,
        memberId: found.memberId,
        workspaceId: found.workspaceId,
        revokedAt: found.revokedAt.toISOString(),
      });
      return found;
    });
    return toApiTokenV1(token);
  }
}
