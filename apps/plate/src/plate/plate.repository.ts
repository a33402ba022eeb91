import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { queryRows, SchemaRepository } from '@worktrack/platform';

export interface ItemRow {
  id: string;
  assignee_id: string;
  assigned_by: string;
  workspace_id: string;
  title: string;
  plate_date: string;
  done_at: Date | null;
  created_at: Date;
}

const ITEM_COLUMNS = 'id, assignee_id, assigned_by, workspace_id, title, plate_date::text AS plate_date, done_at, created_at';

/** Plate days and items. Capacity is claimed with one conditional UPDATE, never read-then-write. */
@Injectable()
export class PlateRepository extends SchemaRepository {
  constructor(dataSource: DataSource) {
    super(dataSource);
  }

  /**
   * Takes one slot on a member's day if it has room, returning the day's open
   * count with it, else null. The row lock it takes is held to the commit, so
   * concurrent claims on one day queue up and never exceed the capacity.
   */
  async claimSlot(manager: EntityManager, memberId: string, date: string, capacity: number): Promise<number | null> {
    await manager.query(`INSERT INTO "${this.schema}"."plate_days" (member_id, plate_date) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
      memberId,
      date,
    ]);
    const rows = await queryRows<{ active_count: number }>(
      manager,
      `UPDATE "${this.schema}"."plate_days" SET active_count = active_count + 1
        WHERE member_id = $1 AND plate_date = $2 AND active_count < $3
        RETURNING active_count`,
      [memberId, date, capacity],
    );
    return rows[0]?.active_count ?? null;
  }

  /** An item already stored under this id (a redelivered assignment), with its day's open count. */
  async assigned(itemId: string): Promise<{ item: ItemRow; activeCount: number } | null> {
    const rows = await this.dataSource.query<Array<ItemRow & { active_count: number }>>(
      `SELECT i.id, i.assignee_id, i.assigned_by, i.workspace_id, i.title, i.plate_date::text AS plate_date, i.done_at, i.created_at,
              d.active_count
         FROM "${this.schema}"."plate_items" i
         JOIN "${this.schema}"."plate_days" d ON d.member_id = i.assignee_id AND d.plate_date = i.plate_date
        WHERE i.id = $1`,
      [itemId],
    );
    const row = rows[0];
    if (!row) return null;
    const { active_count, ...item } = row;
    return { item, activeCount: active_count };
  }

  async insertItem(manager: EntityManager, item: Omit<ItemRow, 'done_at' | 'created_at'>): Promise<ItemRow> {
    const rows = await manager.query<ItemRow[]>(
      `INSERT INTO "${this.schema}"."plate_items" (id, workspace_id, assignee_id, assigned_by, title, plate_date)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${ITEM_COLUMNS}`,
      [item.id, item.workspace_id, item.assignee_id, item.assigned_by, item.title, item.plate_date],
    );
    return rows[0];
  }

  /** The day's counter and a page of its items in creation order, after `after` (keyset at millisecond precision, then id). */
  async day(
    memberId: string,
    date: string,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<{ activeCount: number; items: ItemRow[] }> {
    const [counter, items] = await Promise.all([
      this.dataSource.query<Array<{ active_count: number }>>(
        `SELECT active_count FROM "${this.schema}"."plate_days" WHERE member_id = $1 AND plate_date = $2`,
        [memberId, date],
      ),
      this.dataSource.query<ItemRow[]>(
        `SELECT ${ITEM_COLUMNS} FROM "${this.schema}"."plate_items"
          WHERE assignee_id = $1 AND plate_date = $2
            ${after ? "AND (date_trunc('milliseconds', created_at), id) > ($4::timestamptz, $5::uuid)" : ''}
          ORDER BY date_trunc('milliseconds', created_at), id
          LIMIT $3`,
        after ? [memberId, date, limit, after.createdAt, after.id] : [memberId, date, limit],
      ),
    ]);
    return { activeCount: counter[0]?.active_count ?? 0, items };
  }

  /**
   * Marks an item done once and frees its slot; returns the item (done or not)
   * when the caller may see it, and whether this call is the one that marked it.
   */
  async complete(
    manager: EntityManager,
    workspaceId: string,
    itemId: string,
    callerId: string,
  ): Promise<{ item: ItemRow; completedNow: boolean } | null> {
    const found = await manager.query<ItemRow[]>(
      `SELECT ${ITEM_COLUMNS} FROM "${this.schema}"."plate_items"
        WHERE id = $1 AND workspace_id = $2 AND (assignee_id = $3 OR assigned_by = $3) FOR UPDATE`,
      [itemId, workspaceId, callerId],
    );
    const item = found[0];
    if (!item) return null;
    if (item.done_at) return { item, completedNow: false };
    const done = await queryRows<ItemRow>(
      manager,
      `UPDATE "${this.schema}"."plate_items" SET done_at = now() WHERE id = $1 RETURNING ${ITEM_COLUMNS}`,
      [itemId],
    );
    await manager.query(
      `UPDATE "${this.schema}"."plate_days" SET active_count = active_count - 1 WHERE member_id = $1 AND plate_date = $2 AND active_count > 0`,
      [item.assignee_id, item.plate_date],
    );
    return { item: done[0], completedNow: true };
  }
}
