import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ErrorCode, GetMe, UpdateMe } from '@worktrack/contracts';
import { CommandClient, DomainError } from '@worktrack/platform';
import { Access, AllowedDuringEnrolment } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { ApiTokenVerifier } from '../auth/api-token.verifier';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { ApiData, ApiErrors } from '../openapi/api-responses';
import { ApiValidatedBody } from '../openapi/validation-schemas';
import { UpdateMeDto } from './me.dto';
import { MemberBody, presentMember } from './member.presenter';

@Controller('me')
export class MeController {
  constructor(
    private readonly commands: CommandClient,
    private readonly verifier: ApiTokenVerifier,
  ) {}

  /** D-13: the member the credential acts as. */
  @Get()
  @Access('read')
  @AllowedDuringEnrolment()
  @ApiOperation({ summary: 'Read the member the credential acts as', description: 'Profile, timezone and working hours.' })
  @ApiData(200, MemberBody, 'The member.')
  async me(@CurrentPrincipal() principal: Principal): Promise<{ data: MemberBody }> {
    const member = await this.commands.send(GetMe, { actor: actorOf(principal) }, { key: principal.memberId });
    return { data: presentMember(member) };
  }

  /** Issue 15: the caller changes their own timezone, working hours or display name. */
  @Patch()
  @Access('full')
  @ApiOperation({
    summary: 'Change your profile',
    description:
      'Any of `timezone` (IANA name), `working_hours` and `display_name`; absent fields are kept. Later requests use the new values: ' +
      'date filters of sessions, plate days and "today". Plate items keep the calendar day they were put on; sessions keep their instants.',
  })
  @ApiValidatedBody(UpdateMeDto)
  @ApiData(200, MemberBody, 'The updated profile.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async update(@CurrentPrincipal() principal: Principal, @Body() body: UpdateMeDto): Promise<{ data: MemberBody }> {
    const fields = ['timezone', 'working_hours', 'display_name'] as const;
    const nulls = fields.filter((k) => (body[k] as unknown) === null);
    if (nulls.length > 0) {
      throw new DomainError(
        ErrorCode.VALIDATION_FAILED,
        'The request is invalid.',
        nulls.map((path) => ({ path, issue: 'must not be null' })),
      );
    }
    if (fields.every((k) => body[k] === undefined)) {
      throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', [
        { path: '', issue: 'name at least one of timezone, working_hours, display_name' },
      ]);
    }
    const member = await this.commands.send(
      UpdateMe,
      {
        actor: actorOf(principal),
        ...(body.timezone !== undefined ? { timezone: body.timezone } : {}),
        ...(body.working_hours !== undefined ? { workingHours: body.working_hours } : {}),
        ...(body.display_name !== undefined ? { displayName: body.display_name } : {}),
      },
      { key: principal.memberId },
    );
    this.verifier.memberChanged(member);
    return { data: presentMember(member) };
  }
}
