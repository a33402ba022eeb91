import { Controller, Get } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { GetMe } from '@worktrack/contracts';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { ApiData } from '../openapi/api-responses';
import { CommandClientHost } from '../rpc/command-client.host';
import { MemberBody, presentMember } from './member.presenter';

@Controller('me')
export class MeController {
  constructor(private readonly commands: CommandClientHost) {}

  /** D-13: the member the credential acts as. */
  @Get()
  @Access('read')
  @ApiOperation({ summary: 'Read the member the credential acts as', description: 'Profile, timezone and working hours (D-13).' })
  @ApiData(200, MemberBody, 'The member.')
  async me(@CurrentPrincipal() principal: Principal): Promise<{ data: MemberBody }> {
    const member = await this.commands.client.send(GetMe, { actor: actorOf(principal) }, { key: principal.memberId });
    return { data: presentMember(member) };
  }
}
