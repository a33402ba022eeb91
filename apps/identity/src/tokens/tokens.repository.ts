import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, LessThan, type EntityManager } from 'typeorm';
import { ApiTokenEntity } from './entities/api-token.entity';

/** API tokens, always scoped by their member and workspace. */
@Injectable()
export class TokensRepository {
  constructor(private readonly dataSource: DataSource) {}

  findById(tokenId: string): Promise<ApiTokenEntity | null> {
    return this.dataSource.manager.findOne(ApiTokenEntity, { where: { id: tokenId } });
  }

  findOwn(manager: EntityManager, workspaceId: string, memberId: string, tokenId: string): Promise<ApiTokenEntity | null> {
    return manager.findOne(ApiTokenEntity, { where: { id: tokenId, workspaceId, memberId }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * A page of the member's tokens, newest first, after `before` (keyset on the
   * creation time at millisecond precision, as the cursor carries it, then id).
   */
  listOwn(workspaceId: string, memberId: string, limit: number, before?: { createdAt: string; id: string }): Promise<ApiTokenEntity[]> {
    const q = this.dataSource.manager
      .createQueryBuilder(ApiTokenEntity, 't')
      .where('t.workspace_id = :workspaceId AND t.member_id = :memberId', { workspaceId, memberId })
      .orderBy("date_trunc('milliseconds', t.created_at)", 'DESC')
      .addOrderBy('t.id', 'DESC')
      .limit(limit);
    if (before) {
      q.andWhere("(date_trunc('milliseconds', t.created_at), t.id) < (:createdAt::timestamptz, :id)", before);
    }
    return q.getMany();
  }

  /** Inserts unless the id is taken (then returns false: the caller draws another id). */
  async insertIfFree(
    manager: EntityManager,
    token: Omit<ApiTokenEntity, 'createdAt' | 'member' | 'lastUsedAt' | 'revokedAt' | 'expiresAt'> & { expiresAt?: Date | null },
  ): Promise<boolean> {
    const result = await manager.createQueryBuilder().insert().into(ApiTokenEntity).values(token).orIgnore().execute();
    return (result.raw as unknown[]).length > 0; // RETURNING is empty when the id was taken
  }

  markRevoked(manager: EntityManager, tokenId: string, at: Date): Promise<unknown> {
    return manager.update(ApiTokenEntity, { id: tokenId, revokedAt: IsNull() }, { revokedAt: at });
  }

  /** Records use at most once a minute per token, so verification does not write on every cache miss. */
  touch(tokenId: string, at: Date): Promise<unknown> {
    return this.dataSource.manager
      .createQueryBuilder()
      .update(ApiTokenEntity)
      .set({ lastUsedAt: at })
      .where({ id: tokenId })
      .andWhere([{ lastUsedAt: IsNull() }, { lastUsedAt: LessThan(new Date(at.getTime() - 60_000)) }])
      .execute();
  }
}
