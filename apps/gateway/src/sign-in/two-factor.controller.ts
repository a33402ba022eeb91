import { randomInt } from 'node:crypto';
import { Body, Controller, Delete, HttpCode, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ConfirmTotp, DisableTotp, ErrorCode, secretSha256, StartTotp, UpdateWorkspace } from '@worktrack/contracts';
import { CommandClient } from '@worktrack/platform';
import { Access, AllowedDuringEnrolment } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { ApiData, ApiErrors } from '../openapi/api-responses';
import { ApiValidatedBody } from '../openapi/validation-schemas';
import { RecoveryCodesBody, TotpCodeDto, TotpEnrolmentBody, TotpStateBody, UpdateWorkspaceDto, WorkspaceBody } from './two-factor.dto';

const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
/** A recovery code: 10 characters (50 bits), in two groups: `k3v7q-2xa9m`. */
const recoveryCode = (): string => {
  const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
};

/**
 * Two-factor (D-42). The gateway draws the recovery codes and sends identity
 * only their hashes; they are in the confirming answer, once.
 */
@ApiTags('Sign-in')
@Controller()
export class TwoFactorController {
  constructor(private readonly commands: CommandClient) {}

  @Post('me/totp')
  @HttpCode(200)
  @Access('full')
  @AllowedDuringEnrolment()
  @ApiOperation({ summary: 'Start two-factor enrolment', description: 'A new TOTP secret (SHA-1, 30 s, 6 digits); confirm with a code.' })
  @ApiData(200, TotpEnrolmentBody, 'The secret, shown this once.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async start(@CurrentPrincipal() principal: Principal): Promise<{ data: TotpEnrolmentBody }> {
    const e = await this.commands.send(StartTotp, { actor: actorOf(principal) }, { key: principal.memberId });
    return { data: { secret: e.secret, otpauth_uri: e.otpauthUri } };
  }

  @Post('me/totp/confirm')
  @HttpCode(200)
  @Access('full')
  @AllowedDuringEnrolment()
  @ApiOperation({ summary: 'Turn two-factor on', description: 'With a code of the new secret; answers ten one-time recovery codes, once.' })
  @ApiValidatedBody(TotpCodeDto)
  @ApiData(200, RecoveryCodesBody, 'Two-factor is on.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async confirm(@CurrentPrincipal() principal: Principal, @Body() body: TotpCodeDto): Promise<{ data: RecoveryCodesBody }> {
    const codes = Array.from({ length: 10 }, recoveryCode);
    await this.commands.send(
      ConfirmTotp,
      { actor: actorOf(principal), code: body.code, recoveryCodeSha256s: codes.map((c) => secretSha256(c)) },
      { key: principal.memberId },
    );
    return { data: { recovery_codes: codes } };
  }

  @Delete('me/totp')
  @Access('full')
  @ApiOperation({ summary: 'Turn two-factor off', description: 'With a current code.' })
  @ApiValidatedBody(TotpCodeDto)
  @ApiData(200, TotpStateBody, 'Two-factor is off.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async disable(@CurrentPrincipal() principal: Principal, @Body() body: TotpCodeDto): Promise<{ data: TotpStateBody }> {
    const state = await this.commands.send(DisableTotp, { actor: actorOf(principal), code: body.code }, { key: principal.memberId });
    return { data: state };
  }

  @Patch('workspace')
  @Access('full')
  @ApiOperation({
    summary: 'Change the workspace’s settings',
    description:
      'Owners. `require_two_factor`: `none`, `admins` or `all`; setting anything but `none` needs two-factor on for yourself. ' +
      'Browser sessions of the members it covers may only enrol (403 `TWO_FACTOR_REQUIRED`) until they have; API tokens are not affected.',
  })
  @ApiValidatedBody(UpdateWorkspaceDto)
  @ApiData(200, WorkspaceBody, 'The workspace.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async updateWorkspace(@CurrentPrincipal() principal: Principal, @Body() body: UpdateWorkspaceDto): Promise<{ data: WorkspaceBody }> {
    const w = await this.commands.send(
      UpdateWorkspace,
      { actor: actorOf(principal), requireTwoFactor: body.require_two_factor },
      { key: principal.workspaceId },
    );
    return { data: { workspace_id: w.workspaceId, name: w.name, require_two_factor: w.requireTwoFactor } };
  }
}
