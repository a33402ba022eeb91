import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { DeactivateMember, ErrorCode, ListMembers, UpdateMember } from '@worktrack/contracts';
import { CommandClient, DomainError } from '@worktrack/platform';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { ApiTokenVerifier } from '../auth/api-token.verifier';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { ApiData, ApiErrors, ApiPage } from '../openapi/api-responses';
import { ApiValidatedBody, ApiValidatedParams, ApiValidatedQuery } from '../openapi/validation-schemas';
import { pageOf } from '../pagination/page-query.dto';
import {
  ListedMemberBody,
  ListMembersQueryDto,
  ManagedMemberBody,
  MemberIdParam,
  presentListedMember,
  presentManagedMember,
  UpdateMemberDto,
} from './members.dto';

/**
 * The workspace's members: listed to everyone (what each sees depends on the
 * role, identity decides), managed by owners and admins. A member of another
 * workspace is a missing one (D-7).
 */
@Controller('members')
export class MembersController {
  constructor(
    private readonly commands: CommandClient,
    private readonly verifier: ApiTokenVerifier,
  ) {}

  @Get()
  @Access('read')
  @ApiOperation({
    summary: "List your workspace's members",
    description:
      'Oldest first. Owners and admins see every member, humans and agents, deactivated ones included, with role, plate capacity, status and last use. ' +
      'Plain members see the active teammates with id, name and kind, enough to assign to them. ' +
      'A `report_only` credential sees its own member only.',
  })
  @ApiValidatedQuery(ListMembersQueryDto)
  @ApiPage(ListedMemberBody, 'A page of members, oldest first.')
  @ApiErrors(ErrorCode.INVALID_CURSOR)
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListMembersQueryDto,
  ): Promise<{ data: ListedMemberBody[]; meta: { cursor: string | null } }> {
    const page = await this.commands.send(
      ListMembers,
      { actor: actorOf(principal), ...(query.kind ? { kind: query.kind } : {}), ...pageOf(query) },
      { key: principal.memberId },
    );
    return { data: page.members.map(presentListedMember), meta: { cursor: page.nextCursor ?? null } };
  }

  @Patch(':member_id')
  @Access('full')
  @ApiOperation({
    summary: "Set a member's plate capacity or role",
    description: 'Owners and admins with a `full` credential. Absent fields are kept. The change applies to later requests on every route.',
  })
  @ApiValidatedParams(MemberIdParam)
  @ApiValidatedBody(UpdateMemberDto)
  @ApiData(200, ManagedMemberBody, 'The member, updated.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND)
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param() params: MemberIdParam,
    @Body() body: UpdateMemberDto,
  ): Promise<{ data: ManagedMemberBody }> {
    const nulls = (['plate_capacity', 'role'] as const).filter((k) => (body[k] as unknown) === null);
    if (nulls.length > 0) {
      throw new DomainError(
        ErrorCode.VALIDATION_FAILED,
        'The request is invalid.',
        nulls.map((path) => ({ path, issue: 'must not be null' })),
      );
    }
    const memberId = params.member_id.toLowerCase();
    const member = await this.commands.send(
      UpdateMember,
      {
        actor: actorOf(principal),
        memberId,
        ...(body.plate_capacity !== undefined ? { plateCapacity: body.plate_capacity } : {}),
        ...(body.role !== undefined ? { role: body.role } : {}),
      },
      { key: memberId },
    );
    this.verifier.memberChanged(member);
    return { data: presentManagedMember(member) };
  }

  @Post(':member_id/deactivate')
  @HttpCode(200)
  @Access('full')
  @ApiOperation({
    summary: 'Deactivate a member',
    description:
      "Owners and admins with a `full` credential; idempotent. The member's API tokens and session tokens stop working within 5 seconds on every replica; " +
      'nothing of theirs is deleted; no new plate item can be assigned to them.',
  })
  @ApiValidatedParams(MemberIdParam)
  @ApiData(200, ManagedMemberBody, 'The member, deactivated.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND)
  async deactivate(@CurrentPrincipal() principal: Principal, @Param() params: MemberIdParam): Promise<{ data: ManagedMemberBody }> {
    const memberId = params.member_id.toLowerCase();
    const member = await this.commands.send(DeactivateMember, { actor: actorOf(principal), memberId }, { key: memberId });
    this.verifier.memberChanged(member);
    return { data: presentManagedMember(member) };
  }
}
