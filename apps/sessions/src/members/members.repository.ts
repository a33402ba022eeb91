import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { ActorV1, MemberV1 } from '@worktrack/contracts';
import { schemaOf, type MemberProjectionStore } from '@worktrack/platform';

/** The members projection: the latest time zone identity published for each member. */
@Injectable()
export class SessionsMembersRepository implements MemberProjectionStore {
  private readonly table: string;

  constructor(private readonly dataSource: DataSource) {
    this.table = `"${schemaOf(dataSource)}"."members"`;
  }

  async upsert(member: MemberV1): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${this.table} AS m (member_id, workspace_id, timezone, version, updated_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (member_id) DO UPDATE
         SET workspace_id = EXCLUDED.workspace_id, timezone = EXCLUDED.timezone, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at
         WHERE m.version <= EXCLUDED.version`,
      [member.memberId, member.workspaceId, member.timezone, member.version ?? 0, new Date()],
    );
  }

  async count(): Promise<number> {
    const rows = await this.dataSource.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM ${this.table}`);
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * The actor's time zone: the newer of the profile the gateway carried
   * (identity's answer for this request) and the projection. Undefined when
   * neither knows the member — the caller must not guess.
   */
  async timezoneOf(actor: ActorV1): Promise<string | undefined> {
    const rows = await this.dataSource.query<Array<{ timezone: string; version: number }>>(
      `SELECT timezone, version FROM ${this.table} WHERE member_id = $1 AND workspace_id = $2`,
      [actor.memberId, actor.workspaceId],
    );
    const stored = rows[0];
    const carried = actor.profile && actor.profile.memberId === actor.memberId ? actor.profile : undefined;
    if (carried && (!stored || stored.version < carried.version)) return carried.timezone;
    return stored?.timezone;
  }
}
