import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, ValidateNested } from 'class-validator';
import { defineCommand } from '../../message';
import { ActorOnlyV1 } from '../identity.commands';
import { InviteV1 } from './invite';

export class InviteListV1 {
  @IsArray() @ValidateNested({ each: true }) @Type(() => InviteV1) invites!: InviteV1[];
}
/** D-38: the workspace's pending invites (owners and admins), newest first. */
export const ListInvites = defineCommand({
  type: 'identity.invite.list',
  version: 1,
  topic: 'identityCommands',
  payload: ActorOnlyV1,
  result: InviteListV1,
});
