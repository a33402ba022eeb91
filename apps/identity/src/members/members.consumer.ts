import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DeactivateMember, GetMe, ListMembers, ResolveMember, UpdateMe, UpdateMember, type PayloadOf } from '@worktrack/contracts';
import { HandleCommand } from '@worktrack/platform';
import { MembersService } from './members.service';

/** The member commands on `identity.commands`. */
@Controller()
export class IdentityMembersConsumer {
  constructor(private readonly members: MembersService) {}

  @HandleCommand(GetMe)
  me(@Payload() { actor }: PayloadOf<typeof GetMe>) {
    return this.members.me(actor);
  }

  @HandleCommand(ListMembers)
  list(@Payload() command: PayloadOf<typeof ListMembers>) {
    return this.members.list(command);
  }

  @HandleCommand(ResolveMember)
  resolve(@Payload() { workspaceId, memberId }: PayloadOf<typeof ResolveMember>) {
    return this.members.resolve(workspaceId, memberId);
  }

  @HandleCommand(UpdateMe)
  updateMe(@Payload() command: PayloadOf<typeof UpdateMe>) {
    return this.members.updateMe(command);
  }

  @HandleCommand(UpdateMember)
  updateMember(@Payload() command: PayloadOf<typeof UpdateMember>) {
    return this.members.updateMember(command);
  }

  @HandleCommand(DeactivateMember)
  deactivate(@Payload() { actor, memberId }: PayloadOf<typeof DeactivateMember>) {
    return this.members.deactivate(actor, memberId);
  }
}
