import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsEmail, IsIn, IsInt, IsOptional, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { defineCommand } from '../../message';
import { ActorV1, MEMBER_ROLES, type MemberRole } from '../member';
import { SHA256_HEX } from './browser-session';
import { InviteV1 } from './invite';

/** D-38: the gateway draws the link's secret and sends its hash; identity stores only that. */
export class CreateInviteV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsEmail() @MaxLength(320) email!: string;
  @IsOptional() @IsIn(MEMBER_ROLES) role?: MemberRole;
  @IsOptional() @IsInt() @Min(1) @Max(168) expiresInHours?: number;
  @Matches(SHA256_HEX) secretSha256!: string;
}
export const CreateInvite = defineCommand({
  type: 'identity.invite.create',
  version: 1,
  topic: 'identityCommands',
  payload: CreateInviteV1,
  result: InviteV1,
});
