import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  ErrorCode,
  type ActorV1,
  type AssignPlateItemV1,
  type PlateAssignmentV1,
  type PlateDayV1,
  type PlateItemV1,
} from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';
import { MembersRepository } from '../members/members.repository';
import { isRealDate, isWorkingDay, nextDay, todayIn } from './plate-calendar';
import { PlateRepository, type ItemRow } from './plate.repository';

/** How far ahead an item may overflow before the assignment is refused. */
const MAX_OVERFLOW_DAYS = 366;

const toItem = (r: ItemRow): PlateItemV1 => ({
  plateItemId: r.id,
  assigneeId: r.assignee_id,
  assignedBy: r.assigned_by,
  title: r.title,
  plateDate: r.plate_date,
  done: r.done_at !== null,
  doneAt: r.done_at?.toISOString() ?? null,
  createdAt: r.created_at.toISOString(),
});

/**
 * D-32 … D-35: assign an item to a teammate's day, respecting capacity under
 * concurrency and overflowing to the next working day with room.
 */
@Injectable()
export class PlateService {
  constructor(
    private readonly plate: PlateRepository,
    private readonly members: MembersRepository,
  ) {}

  async assign(command: AssignPlateItemV1): Promise<PlateAssignmentV1> {
    const { actor } = command;
    if (actor.scope !== 'full') throw new DomainError(ErrorCode.FORBIDDEN, 'Assigning to a plate needs a full credential.');
    const assignee = await this.members.findInWorkspace(actor.workspaceId, command.assigneeId);
    if (!assignee) {
      throw new DomainError(ErrorCode.ASSIGNEE_NOT_FOUND, 'No such member in your workspace.', [
        { path: 'assignee_id', issue: 'unknown member' },
      ]);
    }
    const today = todayIn(assignee.timezone);
    const requested = command.plateDate ?? today;
    if (!isRealDate(requested))
      throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', [{ path: 'plate_date', issue: 'not a calendar date' }]);
    if (requested < today) {
      throw new DomainError(ErrorCode.PLATE_DATE_IN_PAST, `plate_date is before the assignee's today (${today} in ${assignee.timezone}).`, [
        { path: 'plate_date', issue: `before ${today}` },
      ]);
    }
    return this.plate.transaction(async (manager) => {
      let date = requested;
      for (let step = 0; step <= MAX_OVERFLOW_DAYS; step++, date = nextDay(date)) {
        if (date !== requested && !isWorkingDay(date, assignee.workingHours)) continue;
        const activeCount = await this.plate.claimSlot(manager, assignee.memberId, date, assignee.plateCapacity);
        if (activeCount === null) continue;
        const item = await this.plate.insertItem(manager, {
          id: randomUUID(),
          workspace_id: actor.workspaceId,
          assignee_id: assignee.memberId,
          assigned_by: actor.memberId,
          title: command.title,
          plate_date: date,
        });
        return {
          plateItemId: item.id,
          assigneeId: assignee.memberId,
          plateDate: date,
          overflowed: date !== requested,
          activeCount,
          capacity: assignee.plateCapacity,
        };
      }
      throw new DomainError(ErrorCode.VALIDATION_FAILED, `The assignee's plate has no room in the next ${MAX_OVERFLOW_DAYS} days.`, [
        { path: 'assignee_id', issue: assignee.plateCapacity === 0 ? 'plate capacity is 0' : 'no working day with room' },
      ]);
    });
  }

  async day(actor: ActorV1, date?: string): Promise<PlateDayV1> {
    const me = await this.members.findInWorkspace(actor.workspaceId, actor.memberId);
    if (!me) throw new DomainError(ErrorCode.UNAVAILABLE, 'Your profile has not reached the plate service yet; retry shortly.');
    const day = date ?? todayIn(me.timezone);
    if (!isRealDate(day))
      throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', [{ path: 'date', issue: 'not a calendar date' }]);
    const { activeCount, items } = await this.plate.day(me.memberId, day);
    return { date: day, capacity: me.plateCapacity, activeCount, items: items.map(toItem) };
  }

  async complete(actor: ActorV1, plateItemId: string): Promise<PlateItemV1> {
    const item = await this.plate.transaction((manager) => this.plate.complete(manager, actor.workspaceId, plateItemId, actor.memberId));
    if (!item) throw new DomainError(ErrorCode.NOT_FOUND, `No plate item ${plateItemId}.`);
    return toItem(item);
  }
}
