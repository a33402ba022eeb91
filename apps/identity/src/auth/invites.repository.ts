import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, MoreThan, type EntityManager } from 'typeorm';
import { InviteEntity } from './entities/invite.entity';

/** Invites (D-38), always scoped by workspace. */
@Injectable()
export class InvitesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    manager: EntityManager,
    invite: Omit<InviteEntity, 'createdAt' | 'workspace' | 'acceptedAt' | 'withdrawnAt'>,
  ): Promise<InviteEntity> {
    return manager.save(InviteEntity, manager.create(InviteEntity, { ...invite, acceptedAt: null, withdrawnAt: null }));
  }

  /** Pending invites of the workspace, newest first. */
  pending(workspaceId: string): Promise<InviteEntity[]> {
    return this.dataSource.manager.find(InviteEntity, {
      where: { workspaceId, acceptedAt: IsNull(), withdrawnAt: IsNull(), expiresAt: MoreThan(new Date()) },
      order: { createdAt: 'DESC' },
      take: 500,
    });
  }

  lockInWorkspace(manager: EntityManager, workspaceId: string, id: string): Promise<InviteEntity | null> {
    return manager.findOne(InviteEntity, { where: { id, workspaceId }, lock: { mode: 'pessimistic_write' } });
  }

  lockBySecret(manager: EntityManager, secretHash: Buffer): Promise<InviteEntity | null> {
    return manager.findOne(InviteEntity, { where: { secretHash }, lock: { mode: 'pessimistic_write' } });
  }

  save(manager: EntityManager, invite: InviteEntity): Promise<InviteEntity> {
    return manager.save(InviteEntity, invite);
  }
}
