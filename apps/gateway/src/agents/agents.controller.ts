import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ErrorCode, RegisterAgent } from '@worktrack/contracts';
import { CommandClient } from '@worktrack/platform';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { presentMember } from '../me/member.presenter';
import { ApiData, ApiErrors } from '../openapi/api-responses';
import { ApiValidatedBody } from '../openapi/validation-schemas';
import { RegisterAgentDto, RegisteredAgentBody } from './agents.dto';

@Controller('agents')
export class AgentsController {
  constructor(private readonly commands: CommandClient) {}

  /** D-12: owners and admins with a full credential; agents cannot register agents (403). */
  @Post()
  @HttpCode(201)
  @Access('full')
  @ApiOperation({
    summary: 'Register an agent',
    description:
      "Creates an agent member in the caller's workspace (timezone and working hours copied from the caller) and its API token. " +
      'Owners and admins with a `full` credential only; agents cannot register agents.',
  })
  @ApiValidatedBody(RegisterAgentDto)
  @ApiData(201, RegisteredAgentBody, 'The agent and its token, shown this once.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async register(@CurrentPrincipal() principal: Principal, @Body() body: RegisterAgentDto): Promise<{ data: RegisteredAgentBody }> {
    const result = await this.commands.send(
      RegisterAgent,
      { actor: actorOf(principal), name: body.name, ...(body.scope ? { scope: body.scope } : {}) },
      { key: principal.memberId },
    );
    return { data: { agent: presentMember(result.agent), token: result.token } };
  }
}
