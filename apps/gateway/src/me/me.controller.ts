import { Controller, Get } from '@nestjs/common';
import { GetMe } from '@worktrack/contracts';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { CommandClientHost } from '../rpc/command-client.host';
import { presentMember, type MemberBody } from './member.presenter';

@Controller('me')
export class MeController {
  constructor(private readonly commands: CommandClientHost) {}

  /** D-13: the member the credential acts as. */
  @Get()
  @Access('read')
  async me(@CurrentPrincipal() principal: Principal): Promise<{ data: MemberBody }> {
    const member = await this.commands.client.send(GetMe, { actor: actorOf(principal) }, { key: principal.memberId });
    return { data: presentMember(member) };
  }
}
