import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { MemberKind } from '@worktrack/contracts';
import { SchemaRepository } from '@worktrack/platform';
import { IdentityMemberEntity } from './entities/member.entity';
import { WorkspaceEntity } from './entities/workspace.entity';

/** Members and workspaces. Every read is scoped by workspace (D-7: a foreign id is a missing one). */
@Injectable()
export class IdentityMembersRepository extends SchemaRepository {
  constructor(dataSource: DataSource) {
    super(dataSource);
  }

  findInWorkspace(
    workspaceId: string,
    memberId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<IdentityMemberEntity | null> {
    return manager.findOne(IdentityMemberEntity, { where: { id: memberId, workspaceId } });
  }

  findByEmail(manager: EntityManager, workspaceId: string, email: string): Promise<IdentityMemberEntity | null> {
    return manager.findOne(IdentityMemberEntity, { where: { workspaceId, email } });
  }

  countInWorkspace(manager: EntityManager, workspaceId: string): Promise<number> {
    return manager.count(IdentityMemberEntity, { where: { workspaceId } });
  }

  async insertMember(
    manager: EntityManager,
    member: Omit<IdentityMemberEntity, 'createdAt' | 'updatedAt' | 'workspace' | 'version' | 'deactivatedAt'>,
  ): Promise<IdentityMemberEntity> {
    return manager.save(IdentityMemberEntity, manager.create(IdentityMemberEntity, { ...member, version: 1, deactivatedAt: null }));
  }

  /** The member, locked for the rest of the transaction (one change at a time, so versions never collide). */
  lockInWorkspace(manager: EntityManager, workspaceId: string, memberId: string): Promise<IdentityMemberEntity | null> {
    return manager.findOne(IdentityMemberEntity, { where: { id: memberId, workspaceId }, lock: { mode: 'pessimistic_write' } });
  }

  /** Saves a change with the next version. */
  async saveChange(manager: EntityManager, member: IdentityMemberEntity): Promise<IdentityMemberEntity> {
    member.version += 1;
    return manager.save(IdentityMemberEntity, member);
  }

  /** Active owners of a workspace other than `exceptId` (a workspace keeps at least one). */
  countOtherActiveOwners(manager: EntityManager, workspaceId: string, exceptId: string): Promise<number> {
    return manager
      .createQueryBuilder(IdentityMemberEntity, 'm')
      .where('m.workspace_id = :workspaceId AND m.role = :role AND m.deactivated_at IS NULL AND m.id <> :exceptId', {
        workspaceId,
        role: 'owner',
        exceptId,
      })
      .getCount();
  }

  /**
   * A page of the workspace's members, oldest first (keyset on the creation
   * time at millisecond precision, as the cursor carries it, then id), each
   * with when it was last seen: the latest use of one of its API tokens or
   * browser sessions.
   */
  async listInWorkspace(
    workspaceId: string,
    options: { kind?: MemberKind; activeOnly: boolean; onlyId?: string; limit: number; after?: { createdAt: string; id: string } },
  ): Promise<Array<{ member: IdentityMemberEntity; lastSeenAt: Date | null }>> {
    const q = this.dataSource.manager
      .createQueryBuilder(IdentityMemberEntity, 'm')
      .addSelect(
        `GREATEST(
          (SELECT max(t.last_used_at) FROM identity.api_tokens t WHERE t.member_id = m.id),
          (SELECT max(b.last_used_at) FROM identity.browser_sessions b WHERE b.member_id = m.id)
        )`,
        'last_seen_at',
      )
      .where('m.workspace_id = :workspaceId', { workspaceId })
      .orderBy("date_trunc('milliseconds', m.created_at)", 'ASC')
      .addOrderBy('m.id', 'ASC')
      .limit(options.limit);
    if (options.kind) q.andWhere('m.kind = :kind', { kind: options.kind });
    if (options.activeOnly) q.andWhere('m.deactivated_at IS NULL');
    if (options.onlyId) q.andWhere('m.id = :onlyId', { onlyId: options.onlyId });
    if (options.after) q.andWhere("(date_trunc('milliseconds', m.created_at), m.id) > (:createdAt::timestamptz, :id)", options.after);
    const { entities, raw } = await q.getRawAndEntities<{ last_seen_at: Date | string | null }>();
    return entities.map((member, i) => {
      const seen = raw[i]?.last_seen_at ?? null;
      return { member, lastSeenAt: seen === null ? null : new Date(seen) };
    });
  }

  /** Every member, in pages by id (the republish command). */
  page(after: string | null, limit: number): Promise<IdentityMemberEntity[]> {
    const query = this.dataSource.manager.createQueryBuilder(IdentityMemberEntity, 'm').orderBy('m.id', 'ASC').limit(limit);
    if (after) query.where('m.id > :after', { after });
    return query.getMany();
  }

  /** The workspace with this name, created if missing (safe under concurrency). */
  async upsertWorkspace(manager: EntityManager, id: string, name: string): Promise<WorkspaceEntity> {
    await manager.createQueryBuilder().insert().into(WorkspaceEntity).values({ id, name }).orIgnore().execute();
    return manager.findOneOrFail(WorkspaceEntity, { where: { name } });
  }
}
