import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsInt, Matches, Min, ValidateNested } from 'class-validator';
import { defineCommand } from '../../message';
import { ActorV1 } from '../member';
import { SHA256_HEX } from './browser-session';

/** D-39: `POST /v1/me/password`; ends the member's other browser sessions. Passwords travel as digests. */
export class ChangePasswordV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @Matches(SHA256_HEX) currentDigest!: string;
  @Matches(SHA256_HEX) newDigest!: string;
}
export class PasswordChangedV1 {
  @IsInt() @Min(0) endedSessions!: number;
}
export const ChangePassword = defineCommand({
  type: 'identity.auth.password.change',
  version: 1,
  topic: 'identityCommands',
  payload: ChangePasswordV1,
  result: PasswordChangedV1,
});
