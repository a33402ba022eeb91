import { Injectable } from '@nestjs/common';
import { v5 as uuidv5 } from 'uuid';
import {
  MAX_PAGE_SIZE,
  type ActorV1,
  type AssignPlateItemV1,
  type GetPlateV1,
  type PlateAssignmentV1,
  type PlateDayV1,
  type PlateItemV1,
} from '@worktrack/contracts';
import { SignedCursor, type CursorScope } from '@worktrack/platform';
import { PlateMembersRepository } from '../members/members.repository';
import { toPlateItemV1 } from './plate-item.mapper';
import { isRealDate, isWorkingDay, nextDay, todayIn } from './plate-calendar';
import {
  assigneeNotFound,
  assignNeedsFullCredential,
  notACalendarDate,
  plateDateInPast,
  plateFull,
  plateItemNotFound,
  profileNotProjectedYet,
} from './plate.errors';
import { PlatePublisher } from './plate.publisher';
import { PlateRepository } from './plate.repository';

/** The namespace of item ids derived from the assigning command's message id. */
const ITEM_ID_NAMESPACE = '3f1c2b7e-6a8d-5e0f-9b4c-2d7a1e6f8c90';

/** How far ahead an item may overflow before the assignment is refused. */
const MAX_OVERFLOW_DAYS = 366;

/**
 * D-32 … D-35: assign an item to a teammate's day, respecting capacity under
 * concurrency and overflowing to the next working day with room.
 */
@Injectable()
export class PlateService {
  constructor(
    private readonly plate: PlateRepository,
    private readonly members: PlateMembersRepository,
    private readonly cursors: SignedCursor,
    private readonly publisher: PlatePublisher,
  ) {}

  /**
   * `messageId` is the assigning command's id. A command delivered again (a
   * replica killed before its offset was committed, ADR 0009) must not assign
   * a second item, so the
   * item's id is derived from it: the first delivery stores the item, any
   * later one finds it and answers the same assignment.
   */
  async assign(command: AssignPlateItemV1, messageId: string): Promise<PlateAssignmentV1> {
    const { actor } = command;
    const itemId = uuidv5(messageId, ITEM_ID_NAMESPACE);
    const replayed = await this.replayed(itemId, command);
    if (replayed) return replayed;
    if (actor.scope !== 'full') throw assignNeedsFullCredential();
    // The gateway resolved the assignee with identity (read-your-writes); the projection may know a newer version.
    const assignee = await this.members.newest(actor.workspaceId, command.assigneeId, command.assignee);
    if (!assignee || !assignee.active) {
      throw assigneeNotFound();
    }
    const today = todayIn(assignee.timezone);
    const requested = command.plateDate ?? today;
    if (!isRealDate(requested)) throw notACalendarDate('plate_date');
    if (requested < today) {
      throw plateDateInPast(today, assignee.timezone);
    }
    try {
      return await this.claimAndInsert(itemId, command, assignee, requested);
    } catch (err) {
      // The same command handled at the same moment by another replica (a rebalance): its insert won.
      if ((err as { driverError?: { code?: string } }).driverError?.code === '23505') {
        const raced = await this.replayed(itemId, command);
        if (raced) return raced;
      }
      throw err;
    }
  }

  private async replayed(itemId: string, command: AssignPlateItemV1): Promise<PlateAssignmentV1 | null> {
    const found = await this.plate.assigned(itemId);
    if (!found) return null;
    const { item, activeCount } = found;
    const assignee = await this.members.newest(command.actor.workspaceId, item.assignee_id, command.assignee);
    return {
      plateItemId: item.id,
      assigneeId: item.assignee_id,
      plateDate: item.plate_date,
      overflowed: item.plate_date !== (command.plateDate ?? item.plate_date),
      activeCount,
      capacity: assignee?.plateCapacity ?? activeCount,
    };
  }

  private claimAndInsert(
    itemId: string,
    command: AssignPlateItemV1,
    assignee: NonNullable<Awaited<ReturnType<PlateMembersRepository['newest']>>>,
    requested: string,
  ): Promise<PlateAssignmentV1> {
    const { actor } = command;
    return this.plate.transaction(async (manager) => {
      let date = requested;
      for (let step = 0; step <= MAX_OVERFLOW_DAYS; step++, date = nextDay(date)) {
        if (date !== requested && !isWorkingDay(date, assignee.workingHours)) continue;
        const activeCount = await this.plate.claimSlot(manager, assignee.memberId, date, assignee.plateCapacity);
        if (activeCount === null) continue;
        const item = await this.plate.insertItem(manager, {
          id: itemId,
          workspace_id: actor.workspaceId,
          assignee_id: assignee.memberId,
          assigned_by: actor.memberId,
          title: command.title,
          plate_date: date,
        });
        // D-54: announced in the assigning transaction (webhooks send `plate.item.assigned`).
        await this.publisher.assigned(manager, {
          plateItemId: item.id,
          workspaceId: actor.workspaceId,
          assigneeId: assignee.memberId,
          assignedBy: actor.memberId,
          title: item.title,
          plateDate: date,
          overflowed: date !== requested,
          requestedDate: requested,
          createdAt: new Date(item.created_at).toISOString(),
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
      throw plateFull(MAX_OVERFLOW_DAYS, assignee.plateCapacity === 0);
    });
  }

  /** The caller's day, a page of items at a time (a day keeps every done item). */
  async day({ actor, date, limit = MAX_PAGE_SIZE, cursor }: GetPlateV1): Promise<PlateDayV1> {
    const me = await this.members.newest(actor.workspaceId, actor.memberId, actor.profile);
    if (!me) throw profileNotProjectedYet();
    const day = date ?? todayIn(me.timezone);
    if (!isRealDate(day)) throw notACalendarDate('date');
    const scope: CursorScope = { list: 'plate.day', owner: actor.memberId, filters: { date: day } };
    const after = this.cursors.createdAtKey(cursor, scope);
    const { activeCount, items } = await this.plate.day(me.memberId, day, limit + 1, after);
    const page = items.slice(0, limit).map(toPlateItemV1);
    const last = page[page.length - 1];
    return {
      date: day,
      capacity: me.plateCapacity,
      activeCount,
      items: page,
      nextCursor: items.length > limit && last ? this.cursors.encode([last.createdAt, last.plateItemId], scope) : null,
    };
  }

  async complete(actor: ActorV1, plateItemId: string): Promise<PlateItemV1> {
    const item = await this.plate.transaction(async (manager) => {
      const found = await this.plate.complete(manager, actor.workspaceId, plateItemId, actor.memberId);
      // D-32, D-51: announced once, in the transaction that marks it done.
      if (found?.completedNow && found.item.done_at) {
        await this.publisher.completed(manager, {
          plateItemId: found.item.id,
          workspaceId: found.item.workspace_id,
          assigneeId: found.item.assignee_id,
          completedBy: actor.memberId,
          plateDate: found.item.plate_date,
          doneAt: new Date(found.item.done_at).toISOString(),
        });
      }
      return found?.item ?? null;
    });
    if (!item) throw plateItemNotFound(plateItemId);
    return toPlateItemV1(item);
  }
}
