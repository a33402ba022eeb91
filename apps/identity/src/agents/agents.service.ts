import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ErrorCode, type ActorV1, type RegisteredAgentV1, type TokenScope } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';
import { IdentityEvents } from '../events/identity-events';
import { DEFAULT_PLATE_CAPACITY, toMemberV1 } from '../members/member.mapper';
import { MembersRepository } from '../members/members.repository';
import { TokensService } from '../tokens/tokens.service';

/**
 * D-12: owners and admins (with a full credential) register agents in their
 * workspace; agents cannot register agents. The agent copies the caller's
 * timezone and working hours, and gets a token (report_only by default).
 */
@Injectable()
export class AgentsService {
  constructor(
    private readonly members: MembersRepository,
    private readonly tokens: TokensService,
    private readonly events: IdentityEvents,
  ) {}

  async register(actor: ActorV1, name: string, scope: TokenScope = 'report_only'): Promise<RegisteredAgentV1> {
    if (actor.scope !== 'full') throw new DomainError(ErrorCode.FORBIDDEN, 'Registering agents needs a full credential.');
    const result = await this.members.transaction(async (manager) => {
      const caller = await this.members.findInWorkspace(actor.workspaceId, actor.memberId, manager);
      if (!caller) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credential.');
      if (caller.kind === 'agent') throw new DomainError(ErrorCode.FORBIDDEN, 'Agents cannot register agents.');
      if (caller.role !== 'owner' && caller.role !== 'admin') {
        throw new DomainError(ErrorCode.FORBIDDEN, 'Only owners and admins can register agents.');
      }
      const agent = await this.members.insertMember(manager, {
        id: randomUUID(),
        workspaceId: caller.workspaceId,
        kind: 'agent',
        role: 'member',
        displayName: name,
        email: null,
        timezone: caller.timezone,
        workingHours: caller.workingHours,
        plateCapacity: DEFAULT_PLATE_CAPACITY,
        createdBy: caller.id,
      });
      const token = await this.tokens.mint(manager, agent, `${name} (agent)`, scope);
      await this.events.memberChanged(manager, toMemberV1(agent));
      return { agent: toMemberV1(agent), token: token.token };
    });
    this.events.published();
    return result;
  }
}
