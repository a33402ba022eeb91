import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsUUID, ValidateNested } from 'class-validator';
import { defineCommand } from '../../message';
import { ActorV1 } from '../member';
import { InviteV1 } from './invite';

/** D-38: `DELETE /v1/invites/{invite_id}` withdraws a pending invite of the caller's workspace. */
export class WithdrawInviteV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsUUID() inviteId!: string;
}
export const WithdrawInvite = defineCommand({
  type: 'identity.invite.withdraw',
  version: 1,
  topic: 'identityCommands',
  payload: WithdrawInviteV1,
  result: InviteV1,
});
