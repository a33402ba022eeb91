import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsString, Matches, ValidateNested } from 'class-validator';
import { defineCommand } from '../../message';
import { ActorOnlyV1 } from '../identity.commands';
import { ActorV1 } from '../member';
import { SHA256_HEX, TWO_FACTOR_POLICIES, type TwoFactorPolicy } from './browser-session';

/** D-42: `POST /v1/me/totp` starts enrolment: a new secret, shown once (sealed at rest). */
export class TotpEnrolmentV1 {
  @Matches(/^[A-Z2-7]+=*$/) secret!: string;
  @IsString() otpauthUri!: string;
}
export const StartTotp = defineCommand({
  type: 'identity.totp.start',
  version: 1,
  topic: 'identityCommands',
  payload: ActorOnlyV1,
  result: TotpEnrolmentV1,
});

/** D-42: `POST /v1/me/totp/confirm`: a code of the new secret turns two-factor on; the gateway drew the 10 recovery codes and sends their hashes. */
export class ConfirmTotpV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @Matches(/^\d{6}$/) code!: string;
  @IsArray() @ArrayMinSize(10) @ArrayMaxSize(10) @Matches(SHA256_HEX, { each: true }) recoveryCodeSha256s!: string[];
}
export class TotpStateV1 {
  @IsIn(['on', 'off']) totp!: 'on' | 'off';
}
export const ConfirmTotp = defineCommand({
  type: 'identity.totp.confirm',
  version: 1,
  topic: 'identityCommands',
  payload: ConfirmTotpV1,
  result: TotpStateV1,
});

/** D-42: `DELETE /v1/me/totp { code }` turns two-factor off. */
export class DisableTotpV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @Matches(/^\d{6}$/) code!: string;
}
export const DisableTotp = defineCommand({
  type: 'identity.totp.disable',
  version: 1,
  topic: 'identityCommands',
  payload: DisableTotpV1,
  result: TotpStateV1,
});

/** D-42: `PATCH /v1/workspace { require_two_factor }`, owners who have two-factor on themselves (to set anything but `none`). */
export class UpdateWorkspaceV1 {
  @ValidateNested() @Type(() => ActorV1) actor!: ActorV1;
  @IsIn(TWO_FACTOR_POLICIES) requireTwoFactor!: TwoFactorPolicy;
}
export class WorkspaceV1 {
  @IsString() workspaceId!: string;
  @IsString() name!: string;
  @IsIn(TWO_FACTOR_POLICIES) requireTwoFactor!: TwoFactorPolicy;
}
export const UpdateWorkspace = defineCommand({
  type: 'identity.workspace.update',
  version: 1,
  topic: 'identityCommands',
  payload: UpdateWorkspaceV1,
  result: WorkspaceV1,
});
