import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { RegisterAgent } from '@worktrack/contracts';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { presentMember, type MemberBody } from '../me/member.presenter';
import { CommandClientHost } from '../rpc/command-client.host';
import { RegisterAgentDto } from './agents.dto';

@Controller('agents')
export class AgentsController {
  constructor(private readonly commands: CommandClientHost) {}

  /** D-12: owners and admins with a full credential; agents cannot register agents (403). */
  @Post()
  @HttpCode(201)
  @Access('full')
  async register(
    @CurrentPrincipal() principal: Principal,
    @Body() body: RegisterAgentDto,
  ): Promise<{ data: { agent: MemberBody; token: string } }> {
    const result = await this.commands.client.send(
      RegisterAgent,
      { actor: actorOf(principal), name: body.name, ...(body.scope ? { scope: body.scope } : {}) },
      { key: principal.memberId },
    );
    return { data: { agent: presentMember(result.agent), token: result.token } };
  }
}
