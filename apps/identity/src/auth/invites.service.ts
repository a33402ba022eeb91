import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  canonicalTimeZone,
  type AcceptInviteV1,
  type ActorV1,
  type CreateInviteV1,
  type InviteListV1,
  type InviteV1,
  type MemberRole,
  type SignedInV1,
} from '@worktrack/contracts';
import type { IdentityMemberEntity } from '../members/entities/member.entity';
import { DEFAULT_PLATE_CAPACITY, DEFAULT_WORKING_HOURS, toMemberV1 } from '../members/member.mapper';
import { MembersPublisher } from '../members/members.publisher';
import { IdentityMembersRepository } from '../members/members.repository';
import { unauthenticated } from '../members/members.errors';
import {
  invalid,
  inviteNotFound,
  inviteRefused,
  invitesNeedFullCredential,
  memberExists,
  onlyOwnersAndAdminsInvite,
  onlyOwnersInviteOwners,
} from './auth.errors';
import { AuthRepository } from './auth.repository';
import { BrowserSessionsService } from './browser-sessions.service';
import type { InviteEntity } from './entities/invite.entity';
import { InvitesRepository } from './invites.repository';
import { PasswordHasher } from './password-hasher';

const HOUR_MS = 3_600_000;
/** D-38: an invite lives 72 hours unless the inviter says otherwise (1..168). */
export const DEFAULT_INVITE_HOURS = 72;

/** Who invites through the admin command (not a member). */
export const OPERATOR_INVITER = '00000000-0000-0000-0000-000000000000';

export interface InviteInput {
  workspaceId: string;
  email: string;
  role: MemberRole;
  invitedBy: string;
  hours: number;
  secretSha256: string;
  allowExistingWithoutPassword: boolean;
}

/**
 * Stores an invite. An active member with that email is MEMBER_EXISTS —
 * except, for the admin command, one who has no password yet (the link then
 * sets it: how the demo owner of `npm start` first signs in).
 */
export async function issueInvite(
  manager: EntityManager,
  repos: { invites: InvitesRepository; members: IdentityMembersRepository; auth: AuthRepository },
  input: InviteInput,
): Promise<InviteEntity> {
  const email = input.email.trim().toLowerCase();
  const existing = await repos.members.findByEmail(manager, input.workspaceId, email);
  if (existing && !existing.deactivatedAt) {
    const credential = input.allowExistingWithoutPassword ? await repos.auth.findCredential(existing.id, manager) : null;
    if (!input.allowExistingWithoutPassword || credential?.passwordHash) throw memberExists();
  }
  return repos.invites.insert(manager, {
    id: randomUUID(),
    workspaceId: input.workspaceId,
    email,
    role: input.role,
    secretHash: Buffer.from(input.secretSha256, 'hex'),
    invitedBy: input.invitedBy,
    expiresAt: new Date(Date.now() + input.hours * HOUR_MS),
  });
}

export const toInviteV1 = (i: InviteEntity): InviteV1 => ({
  inviteId: i.id,
  email: i.email,
  role: i.role,
  createdAt: i.createdAt.toISOString(),
  expiresAt: i.expiresAt.toISOString(),
  invitedBy: i.invitedBy,
});

/**
 * Invites (D-38): owners and admins invite by email; the one-time link
 * (secret stored by hash only) creates the member in the inviter's workspace
 * and signs it in.
 */
@Injectable()
export class InvitesService {
  constructor(
    private readonly invites: InvitesRepository,
    private readonly members: IdentityMembersRepository,
    private readonly membersPublisher: MembersPublisher,
    private readonly auth: AuthRepository,
    private readonly hasher: PasswordHasher,
    private readonly sessions: BrowserSessionsService,
  ) {}

  async create(command: CreateInviteV1): Promise<InviteV1> {
    const { actor } = command;
    const role: MemberRole = command.role ?? 'member';
    return this.members.transaction(async (manager) => {
      const caller = await this.authorisedCaller(actor, manager);
      if (role === 'owner' && caller.role !== 'owner') throw onlyOwnersInviteOwners();
      return toInviteV1(
        await this.issue(manager, {
          workspaceId: actor.workspaceId,
          email: command.email,
          role,
          invitedBy: caller.id,
          hours: command.expiresInHours ?? DEFAULT_INVITE_HOURS,
          secretSha256: command.secretSha256,
          allowExistingWithoutPassword: false,
        }),
      );
    });
  }

  issue(manager: EntityManager, input: InviteInput): Promise<InviteEntity> {
    return issueInvite(manager, { invites: this.invites, members: this.members, auth: this.auth }, input);
  }

  async list(actor: ActorV1): Promise<InviteListV1> {
    await this.authorisedCaller(actor);
    return { invites: (await this.invites.pending(actor.workspaceId)).map(toInviteV1) };
  }

  async withdraw(actor: ActorV1, inviteId: string): Promise<InviteV1> {
    return this.members.transaction(async (manager) => {
      await this.authorisedCaller(actor, manager);
      const invite = await this.invites.lockInWorkspace(manager, actor.workspaceId, inviteId);
      if (!invite || invite.acceptedAt || invite.withdrawnAt) throw inviteNotFound(inviteId);
      invite.withdrawnAt = new Date();
      return toInviteV1(await this.invites.save(manager, invite));
    });
  }

  /** The link works once, before expiry: creates the member (or sets the password of an invited one without) and signs in. */
  async accept(command: AcceptInviteV1): Promise<SignedInV1> {
    const timezone = command.timezone === undefined ? 'UTC' : canonicalTimeZone(command.timezone);
    if (!timezone) throw invalid('timezone', 'not an IANA time zone');
    if (command.displayName !== undefined && command.displayName.trim() === '') throw invalid('display_name', 'must not be blank');
    // Hashed before the transaction: argon2id is slow and holds no lock.
    const passwordHash = await this.hasher.hash(command.passwordDigest);
    return this.members.transaction(async (manager) => {
      const invite = await this.invites.lockBySecret(manager, Buffer.from(command.secretSha256, 'hex'));
      if (!invite || invite.acceptedAt || invite.withdrawnAt || invite.expiresAt <= new Date()) throw inviteRefused();
      let member: IdentityMemberEntity | null = await this.members.findByEmail(manager, invite.workspaceId, invite.email);
      if (member) {
        const credential = await this.auth.findCredential(member.id, manager);
        if (member.deactivatedAt) throw inviteRefused();
        if (credential?.passwordHash) throw memberExists();
      } else {
        member = await this.members.insertMember(manager, {
          id: randomUUID(),
          workspaceId: invite.workspaceId,
          kind: 'human',
          role: invite.role,
          displayName: command.displayName?.trim() ?? invite.email.split('@')[0],
          email: invite.email,
          timezone,
          workingHours: DEFAULT_WORKING_HOURS,
          plateCapacity: DEFAULT_PLATE_CAPACITY,
          createdBy: invite.invitedBy === OPERATOR_INVITER ? null : invite.invitedBy,
        });
        await this.membersPublisher.changed(manager, toMemberV1(member));
      }
      invite.acceptedAt = new Date();
      await this.invites.save(manager, invite);
      await this.auth.setPassword(manager, member.id, passwordHash);
      return this.sessions.open(manager, member, ['pwd'], command.refreshSha256, command.userAgent);
    });
  }

  /** D-38: owners and admins, with a full credential. */
  private async authorisedCaller(actor: ActorV1, manager?: EntityManager): Promise<IdentityMemberEntity> {
    const caller = await this.members.findInWorkspace(actor.workspaceId, actor.memberId, manager);
    if (!caller || caller.deactivatedAt) throw unauthenticated();
    if (caller.role !== 'owner' && caller.role !== 'admin') throw onlyOwnersAndAdminsInvite();
    if (actor.scope !== 'full') throw invitesNeedFullCredential();
    return caller;
  }
}
