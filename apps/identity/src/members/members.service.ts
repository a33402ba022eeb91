import { Injectable } from '@nestjs/common';
import { ErrorCode, type ActorV1, type MemberV1 } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';
import { toMemberV1 } from './member.mapper';
import { MembersRepository } from './members.repository';

/** D-13: the member a credential acts as. */
@Injectable()
export class MembersService {
  constructor(private readonly members: MembersRepository) {}

  async me(actor: ActorV1): Promise<MemberV1> {
    const member = await this.members.findInWorkspace(actor.workspaceId, actor.memberId);
    // A credential whose member is gone (or another workspace's) is no credential.
    if (!member) throw new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credential.');
    return toMemberV1(member);
  }
}
