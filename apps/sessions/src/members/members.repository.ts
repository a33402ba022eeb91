import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { MemberV1 } from '@worktrack/contracts';
import { schemaOf } from '@worktrack/platform';

/** The members projection: the latest time zone identity published for each member. */
@Injectable()
export class MembersRepository {
  private readonly table: string;

  constructor(private readonly dataSource: DataSource) {
    this.table = `"${schemaOf(dataSource)}"."members"`;
  }

  /** Idempotent: identity's relay republishes a member's messages in order, so the last one handled is its latest. */
  async upsert(member: MemberV1, at: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${this.table} (member_id, workspace_id, timezone, updated_at)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (member_id) DO UPDATE
         SET workspace_id = EXCLUDED.workspace_id, timezone = EXCLUDED.timezone, updated_at = EXCLUDED.updated_at`,
      [member.memberId, member.workspaceId, member.timezone, at],
    );
  }

  /** The member's profile time zone, if identity told us about the member. */
  async timezoneOf(memberId: string): Promise<string | undefined> {
    const rows = await this.dataSource.query<Array<{ timezone: string }>>(`SELECT timezone FROM ${this.table} WHERE member_id = $1`, [
      memberId,
    ]);
    return rows[0]?.timezone;
  }
}
