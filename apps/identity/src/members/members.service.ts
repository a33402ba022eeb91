import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  canonicalTimeZone,
  DEFAULT_PAGE_SIZE,
  WEEKDAYS,
  type ActorV1,
  type ListedMemberV1,
  type ListMembersV1,
  type MemberListV1,
  type MemberV1,
  type UpdateMemberV1,
  type UpdateMeV1,
  type WorkingHours,
} from '@worktrack/contracts';
import { SignedCursor, type CursorScope } from '@worktrack/platform';
import type { IdentityMemberEntity } from './entities/member.entity';
import { toMemberV1 } from './member.mapper';
import {
  invalidField as invalid,
  manageNeedsFullCredential,
  memberNotFound,
  onlyOwnerChangesOwners,
  onlyOwnerDeactivatesOwners,
  onlyOwnersAndAdminsManage,
  unauthenticated,
} from './members.errors';
import { MembersPublisher } from './members.publisher';
import { IdentityMembersRepository } from './members.repository';

/** Intervals of a day must be start < end, in order, not overlapping. Returns the first problem. */
export function workingHoursProblem(hours: WorkingHours): { path: string; issue: string } | undefined {
  for (const day of WEEKDAYS) {
    let previousEnd = '';
    for (const [i, { start, end }] of hours[day].entries()) {
      if (start >= end) return { path: `working_hours.${day}[${i}]`, issue: 'start must be before end' };
      if (start < previousEnd) return { path: `working_hours.${day}[${i}]`, issue: 'intervals must be in order and must not overlap' };
      previousEnd = end;
    }
  }
  return undefined;
}

/** A member as the list shows it: everything for a manager (or the caller itself), id, name and kind otherwise. */
function listed(member: IdentityMemberEntity, lastSeenAt: Date | null, full: boolean): ListedMemberV1 {
  const base: ListedMemberV1 = { memberId: member.id, kind: member.kind, displayName: member.displayName };
  if (!full) return base;
  return {
    ...base,
    role: member.role,
    email: member.email,
    timezone: member.timezone,
    plateCapacity: member.plateCapacity,
    active: member.deactivatedAt === null,
    createdAt: member.createdAt.toISOString(),
    lastSeenAt: lastSeenAt ? new Date(Math.floor(lastSeenAt.getTime() / 60_000) * 60_000).toISOString() : null,
  };
}

/**
 * Members (D-7, D-13): who a credential acts as, profile changes and
 * deactivation. Every change bumps the member's version and is published in
 * the same transaction (identity.events and the compacted identity.members).
 */
@Injectable()
export class MembersService {
  constructor(
    private readonly members: IdentityMembersRepository,
    private readonly publisher: MembersPublisher,
    private readonly cursors: SignedCursor,
  ) {}

  async me(actor: ActorV1): Promise<MemberV1> {
    return toMemberV1(await this.activeCaller(actor));
  }

  /**
   * The workspace's members, oldest first, a page at a time (D-29 paging).
   * Owners and admins see every member with its role, capacity, status and
   * last use; plain members see the active teammates' id, name and kind (what
   * assigning needs, D-35); a `report_only` credential sees its own member
   * only (as D-52). A cursor is bound to the caller, the view and the filter.
   */
  async list({ actor, kind, limit = DEFAULT_PAGE_SIZE, cursor }: ListMembersV1): Promise<MemberListV1> {
    const caller = await this.activeCaller(actor);
    const view = actor.scope === 'report_only' ? 'self' : caller.role === 'owner' || caller.role === 'admin' ? 'all' : 'teammates';
    const scope: CursorScope = { list: 'members', owner: actor.memberId, filters: { view, kind } };
    const after = this.cursors.createdAtKey(cursor, scope);
    const rows = await this.members.listInWorkspace(actor.workspaceId, {
      ...(kind ? { kind } : {}),
      activeOnly: view !== 'all',
      ...(view === 'self' ? { onlyId: caller.id } : {}),
      limit: limit + 1,
      ...(after ? { after } : {}),
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1]?.member;
    return {
      members: page.map(({ member, lastSeenAt }) => listed(member, lastSeenAt, view !== 'teammates' || member.id === caller.id)),
      nextCursor: rows.length > limit && last ? this.cursors.encode([last.createdAt.toISOString(), last.id], scope) : null,
    };
  }

  /** An active member of that workspace; a missing, foreign or deactivated one is UNAUTHENTICATED (D-7). */
  async resolve(workspaceId: string, memberId: string): Promise<MemberV1> {
    const member = await this.members.findInWorkspace(workspaceId, memberId);
    if (!member || member.deactivatedAt) throw unauthenticated();
    return toMemberV1(member);
  }

  async updateMe(command: UpdateMeV1): Promise<MemberV1> {
    const { actor } = command;
    const timezone = command.timezone === undefined ? undefined : canonicalTimeZone(command.timezone);
    if (command.timezone !== undefined && !timezone) throw invalid('timezone', 'not an IANA time zone');
    if (command.workingHours) {
      const problem = workingHoursProblem(command.workingHours);
      if (problem) throw invalid(problem.path, problem.issue);
    }
    if (command.displayName !== undefined && command.displayName.trim() === '') throw invalid('display_name', 'must not be blank');
    return this.change(actor, actor.memberId, (member) => {
      if (timezone !== undefined) member.timezone = timezone;
      if (command.workingHours) member.workingHours = command.workingHours;
      if (command.displayName !== undefined) member.displayName = command.displayName.trim();
    });
  }

  /** Owners and admins set a member's daily plate capacity and role. */
  async updateMember(command: UpdateMemberV1): Promise<MemberV1> {
    const { actor, memberId, plateCapacity, role } = command;
    return this.change(actor, memberId, async (member, caller, manager) => {
      this.mayManage(actor, caller);
      if (role !== undefined && role !== member.role) {
        if (member.kind === 'agent') throw invalid('role', 'an agent is always a member');
        if (caller.role !== 'owner' && (role === 'owner' || member.role === 'owner')) {
          throw onlyOwnerChangesOwners();
        }
        if (member.role === 'owner' && (await this.members.countOtherActiveOwners(manager, member.workspaceId, member.id)) === 0) {
          throw invalid('role', 'a workspace keeps at least one active owner');
        }
        member.role = role;
      }
      if (plateCapacity !== undefined) member.plateCapacity = plateCapacity;
    });
  }

  /** Idempotent. Nothing of the member is deleted; their credentials stop working (the gateway follows the event). */
  async deactivate(actor: ActorV1, memberId: string): Promise<MemberV1> {
    return this.change(actor, memberId, async (member, caller, manager) => {
      this.mayManage(actor, caller);
      if (member.deactivatedAt) return false;
      if (member.role === 'owner' && caller.role !== 'owner') throw onlyOwnerDeactivatesOwners();
      if (member.role === 'owner' && (await this.members.countOtherActiveOwners(manager, member.workspaceId, member.id)) === 0) {
        throw invalid('member_id', 'a workspace keeps at least one active owner');
      }
      member.deactivatedAt = new Date();
    });
  }

  private mayManage(actor: ActorV1, caller: IdentityMemberEntity): void {
    if (actor.scope !== 'full') throw manageNeedsFullCredential();
    if (caller.role !== 'owner' && caller.role !== 'admin') throw onlyOwnersAndAdminsManage();
  }

  private async activeCaller(actor: ActorV1, manager?: EntityManager): Promise<IdentityMemberEntity> {
    const member = await this.members.findInWorkspace(actor.workspaceId, actor.memberId, manager);
    // A credential whose member is gone, deactivated or another workspace's is no credential.
    if (!member || member.deactivatedAt) throw unauthenticated();
    return member;
  }

  /**
   * Locks the target, applies `edit` (which returns false for "nothing to
   * do"), saves it with the next version and publishes it, all in one
   * transaction. An edit that changes nothing is not a new version.
   */
  private async change(
    actor: ActorV1,
    memberId: string,
    edit: (member: IdentityMemberEntity, caller: IdentityMemberEntity, manager: EntityManager) => unknown,
  ): Promise<MemberV1> {
    const member = await this.members.transaction(async (manager) => {
      const caller = await this.activeCaller(actor, manager);
      const target = await this.members.lockInWorkspace(manager, actor.workspaceId, memberId);
      if (!target) throw memberNotFound(memberId);
      const before = JSON.stringify(toMemberV1(target));
      if ((await edit(target, target.id === caller.id ? target : caller, manager)) === false) return target;
      if (JSON.stringify(toMemberV1(target)) === before) return target;
      const saved = await this.members.saveChange(manager, target);
      await this.publisher.changed(manager, toMemberV1(saved));
      return saved;
    });
    return toMemberV1(member);
  }
}
