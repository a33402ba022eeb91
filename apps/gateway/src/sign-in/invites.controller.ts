import { randomBytes } from 'node:crypto';
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateInvite, ErrorCode, ListInvites, secretSha256, WithdrawInvite } from '@worktrack/contracts';
import { type AppLogger, CommandClient, createMailer, LOGGER, type Mailer } from '@worktrack/platform';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { GatewayConfig } from '../gateway.config';
import { ApiData, ApiErrors } from '../openapi/api-responses';
import { ApiValidatedBody, ApiValidatedParams } from '../openapi/validation-schemas';
import { CreatedInviteBody, CreateInviteDto, InviteBody, InviteIdParam, inviteMail, presentInvite } from './invites.dto';

/** D-38: the web app's page that accepts an invite link. */
export const acceptUrl = (publicUrl: string, secret: string): string => `${publicUrl}/accept-invite?token=${secret}`;

/**
 * Invites (D-38), owners and admins with a full credential. The gateway draws
 * the link's secret and sends identity only its hash: the secret is in this
 * one response (and the mail), nowhere else.
 */
@ApiTags('Invites')
@Controller('invites')
export class InvitesController {
  private readonly mailer: Mailer;

  constructor(
    private readonly commands: CommandClient,
    private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    this.mailer = createMailer(config.SMTP_URL, config.MAIL_FROM);
  }

  @Post()
  @HttpCode(201)
  @Access('full')
  @ApiOperation({
    summary: 'Invite someone by email',
    description: 'Owners and admins. The link works once, before `expires_at`. An active member’s email is 409 `MEMBER_EXISTS`.',
  })
  @ApiValidatedBody(CreateInviteDto)
  @ApiData(201, CreatedInviteBody, 'The invite, with its link shown this once.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.MEMBER_EXISTS)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateInviteDto): Promise<{ data: CreatedInviteBody }> {
    const secret = randomBytes(32).toString('base64url');
    const invite = await this.commands.send(
      CreateInvite,
      {
        actor: actorOf(principal),
        email: body.email,
        ...(body.role ? { role: body.role } : {}),
        ...(body.expires_in_hours !== undefined ? { expiresInHours: body.expires_in_hours } : {}),
        secretSha256: secretSha256(secret),
      },
      { key: principal.workspaceId },
    );
    const url = acceptUrl(this.config.PUBLIC_URL, secret);
    if (this.mailer.configured) {
      // The invite stands whatever the mail server does; the inviter has the link in this answer.
      await this.mailer.send(inviteMail(invite.email, url, invite.expiresAt)).catch((err: unknown) => {
        this.logger.warn({ err: err instanceof Error ? err.message : String(err), inviteId: invite.inviteId }, 'invite mail not sent');
      });
    }
    return { data: { ...presentInvite(invite), accept_url: url } };
  }

  @Get()
  @Access('read')
  @ApiOperation({ summary: 'List pending invites', description: 'Owners and admins; newest first, without links.' })
  @ApiData(200, [InviteBody], 'Pending invites.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async list(@CurrentPrincipal() principal: Principal): Promise<{ data: InviteBody[] }> {
    const { invites } = await this.commands.send(ListInvites, { actor: actorOf(principal) }, { key: principal.workspaceId });
    return { data: invites.map(presentInvite) };
  }

  @Delete(':invite_id')
  @Access('full')
  @ApiOperation({ summary: 'Withdraw an invite', description: 'Its link stops working. A used or unknown invite is a 404.' })
  @ApiValidatedParams(InviteIdParam)
  @ApiData(200, InviteBody, 'The invite, withdrawn.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async withdraw(@CurrentPrincipal() principal: Principal, @Param() params: InviteIdParam): Promise<{ data: InviteBody }> {
    const invite = await this.commands.send(
      WithdrawInvite,
      { actor: actorOf(principal), inviteId: params.invite_id.toLowerCase() },
      { key: principal.workspaceId },
    );
    return { data: presentInvite(invite) };
  }
}
