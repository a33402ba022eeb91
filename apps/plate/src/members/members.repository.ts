import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { MemberV1 } from '@worktrack/contracts';
import { PlateMemberEntity } from './entities/plate-member.entity';

/** The plate's projection of identity's members. */
@Injectable()
export class MembersRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Idempotent: replaying a message writes the same row. */
  async upsert(member: MemberV1): Promise<void> {
    await this.dataSource.manager.upsert(
      PlateMemberEntity,
      {
        memberId: member.memberId,
        workspaceId: member.workspaceId,
        timezone: member.timezone,
        workingHours: member.workingHours,
        plateCapacity: member.plateCapacity,
      },
      ['memberId'],
    );
  }

  /** A member of that workspace, or null (D-7: a foreign id is a missing one). */
  findInWorkspace(
    workspaceId: string,
    memberId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<PlateMemberEntity | null> {
    return manager.findOne(PlateMemberEntity, { where: { memberId, workspaceId } });
  }
}
