import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { ActorV1, RegisteredAgentV1, TokenScope } from '@worktrack/contracts';
import { DEFAULT_PLATE_CAPACITY, toMemberV1 } from '../members/member.mapper';
import { MembersPublisher } from '../members/members.publisher';
import { IdentityMembersRepository } from '../members/members.repository';
import { TokensService } from '../tokens/tokens.service';
import { unauthenticated } from '../members/members.errors';
import { agentsCannotRegisterAgents, onlyOwnersAndAdminsRegister, registerNeedsFullCredential } from './agents.errors';

/**
 * D-12: owners and admins (with a full credential) register agents in their
 * workspace; agents cannot register agents. The agent copies the caller's
 * timezone and working hours, and gets a token (report_only by default).
 */
@Injectable()
export class AgentsService {
  constructor(
    private readonly members: IdentityMembersRepository,
    private readonly tokens: TokensService,
    private readonly publisher: MembersPublisher,
  ) {}

  async register(actor: ActorV1, name: string, scope: TokenScope = 'report_only'): Promise<RegisteredAgentV1> {
    if (actor.scope !== 'full') throw registerNeedsFullCredential();
    return this.members.transaction(async (manager) => {
      const caller = await this.members.findInWorkspace(actor.workspaceId, actor.memberId, manager);
      if (!caller || caller.deactivatedAt) throw unauthenticated();
      if (caller.kind === 'agent') throw agentsCannotRegisterAgents();
      if (caller.role !== 'owner' && caller.role !== 'admin') {
        throw onlyOwnersAndAdminsRegister();
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
      await this.publisher.changed(manager, toMemberV1(agent));
      return { agent: toMemberV1(agent), token: token.token };
    });
  }
}
