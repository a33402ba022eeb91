import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { MemberProfileV1, MemberV1, WorkingHours } from '@worktrack/contracts';
import { schemaOf, type MemberProjectionStore } from '@worktrack/platform';
import { PlateMemberEntity } from './entities/plate-member.entity';

/** What the plate needs of a member to put items on their days. */
export interface PlateMember {
  memberId: string;
  workspaceId: string;
  timezone: string;
  workingHours: WorkingHours;
  plateCapacity: number;
  version: number;
  active: boolean;
}

/** The plate's projection of identity's members. */
@Injectable()
export class PlateMembersRepository implements MemberProjectionStore {
  private readonly table: string;

  constructor(private readonly dataSource: DataSource) {
    this.table = `"${schemaOf(dataSource)}"."members"`;
  }

  async upsert(member: MemberV1): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${this.table} AS m (member_id, workspace_id, timezone, working_hours, plate_capacity, version, active, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now())
       ON CONFLICT (member_id) DO UPDATE
         SET workspace_id = EXCLUDED.workspace_id, timezone = EXCLUDED.timezone, working_hours = EXCLUDED.working_hours,
             plate_capacity = EXCLUDED.plate_capacity, version = EXCLUDED.version, active = EXCLUDED.active, updated_at = now()
         WHERE m.version <= EXCLUDED.version`,
      [
        member.memberId,
        member.workspaceId,
        member.timezone,
        JSON.stringify(member.workingHours),
        member.plateCapacity,
        member.version ?? 0,
        member.active !== false,
      ],
    );
  }

  async count(): Promise<number> {
    return this.dataSource.manager.count(PlateMemberEntity);
  }

  /** A member of that workspace, or null (D-7: a foreign id is a missing one). */
  findInWorkspace(
    workspaceId: string,
    memberId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<PlateMemberEntity | null> {
    return manager.findOne(PlateMemberEntity, { where: { memberId, workspaceId } });
  }

  /**
   * The newest of what the gateway carried (identity's answer when the request
   * arrived) and the projection: a member created or changed a moment ago is
   * known from the command; a change the projection already has wins over an
   * older carried profile. Null when neither knows the member in that workspace.
   */
  async newest(workspaceId: string, memberId: string, carried?: MemberProfileV1): Promise<PlateMember | null> {
    const stored = await this.findInWorkspace(workspaceId, memberId);
    const usable = carried && carried.memberId === memberId && carried.workspaceId === workspaceId ? carried : undefined;
    if (usable && (!stored || stored.version < usable.version)) return { ...usable, active: true };
    return stored;
  }
}
