import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { MemberEntity } from './entities/member.entity';
import { WorkspaceEntity } from './entities/workspace.entity';

/** Members and workspaces. Every read is scoped by workspace (D-7: a foreign id is a missing one). */
@Injectable()
export class MembersRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  findInWorkspace(workspaceId: string, memberId: string, manager: EntityManager = this.dataSource.manager): Promise<MemberEntity | null> {
    return manager.findOne(MemberEntity, { where: { id: memberId, workspaceId } });
  }

  findByEmail(manager: EntityManager, workspaceId: string, email: string): Promise<MemberEntity | null> {
    return manager.findOne(MemberEntity, { where: { workspaceId, email } });
  }

  countInWorkspace(manager: EntityManager, workspaceId: string): Promise<number> {
    return manager.count(MemberEntity, { where: { workspaceId } });
  }

  async insertMember(manager: EntityManager, member: Omit<MemberEntity, 'createdAt' | 'updatedAt' | 'workspace'>): Promise<MemberEntity> {
    return manager.save(MemberEntity, manager.create(MemberEntity, member));
  }

  /** The workspace with this name, created if missing (safe under concurrency). */
  async upsertWorkspace(manager: EntityManager, id: string, name: string): Promise<WorkspaceEntity> {
    await manager.createQueryBuilder().insert().into(WorkspaceEntity).values({ id, name }).orIgnore().execute();
    return manager.findOneOrFail(WorkspaceEntity, { where: { name } });
  }
}
