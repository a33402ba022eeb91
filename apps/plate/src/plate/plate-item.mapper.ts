import type { PlateItemV1 } from '@worktrack/contracts';
import type { ItemRow } from './plate.repository';

/** A plate item as the contract shows it. */
export const toPlateItemV1 = (r: ItemRow): PlateItemV1 => ({
  plateItemId: r.id,
  assigneeId: r.assignee_id,
  assignedBy: r.assigned_by,
  title: r.title,
  plateDate: r.plate_date,
  done: r.done_at !== null,
  doneAt: r.done_at?.toISOString() ?? null,
  createdAt: r.created_at.toISOString(),
});
