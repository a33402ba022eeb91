import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { AssignPlateItem, CompletePlateItem, ErrorCode, GetPlate, type MemberProfileV1 } from '@worktrack/contracts';
import { CommandClient, DomainError, isDomainError } from '@worktrack/platform';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { ApiTokenVerifier } from '../auth/api-token.verifier';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { ApiData, ApiDataPage, ApiErrors } from '../openapi/api-responses';
import { pageOf } from '../pagination/page-query.dto';
import { ApiValidatedBody, ApiValidatedParams, ApiValidatedQuery } from '../openapi/validation-schemas';
import {
  AssignPlateDto,
  CompletePlateItemDto,
  PlateAssignmentBody,
  PlateDayBody,
  PlateItemBody,
  PlateItemParam,
  PlateQueryDto,
  presentAssignment,
  presentDay,
  presentItem,
} from './plate.dto';

@Controller('plate')
export class PlateController {
  constructor(
    private readonly commands: CommandClient,
    private readonly verifier: ApiTokenVerifier,
  ) {}

  /** D-32 … D-35. The command is keyed by the assignee: one member's plate is handled in order. */
  @Post('assign')
  @HttpCode(201)
  @Access('full')
  @ApiOperation({
    summary: "Put an item on a teammate's plate",
    description:
      "Respects the assignee's daily capacity; a full day overflows to the next working day with room. Capacity holds under concurrent assignments.",
  })
  @ApiValidatedBody(AssignPlateDto)
  @ApiData(201, PlateAssignmentBody, 'Where the item landed.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.ASSIGNEE_NOT_FOUND, ErrorCode.PLATE_DATE_IN_PAST)
  async assign(@CurrentPrincipal() principal: Principal, @Body() body: AssignPlateDto): Promise<{ data: PlateAssignmentBody }> {
    const assignee = await this.assignee(principal, body.assignee_id);
    const result = await this.commands.send(
      AssignPlateItem,
      {
        actor: actorOf(principal),
        assigneeId: assignee.memberId,
        title: body.title,
        ...(body.plate_date ? { plateDate: body.plate_date } : {}),
        assignee,
      },
      { key: assignee.memberId },
    );
    return { data: presentAssignment(result) };
  }

  /** First-party: your own plate for a day. */
  @Get()
  @Access('read')
  @ApiOperation({
    summary: 'Read your plate for a day',
    description:
      'Default: your today in your timezone. Done items are listed with `done: true`. Items come in creation order, a page at a time; `meta.cursor` fetches the next items of the same day.',
  })
  @ApiValidatedQuery(PlateQueryDto)
  @ApiDataPage(PlateDayBody, 'The day, with a page of its items.')
  @ApiErrors(ErrorCode.INVALID_CURSOR)
  async day(
    @CurrentPrincipal() principal: Principal,
    @Query() query: PlateQueryDto,
  ): Promise<{ data: PlateDayBody; meta: { cursor: string | null } }> {
    const day = await this.commands.send(
      GetPlate,
      { actor: actorOf(principal), ...(query.date ? { date: query.date } : {}), ...pageOf(query) },
      { key: principal.memberId },
    );
    return { data: presentDay(day), meta: { cursor: day.nextCursor ?? null } };
  }

  /** First-party: an item leaves the plate (by its assignee or its assigner). */
  @Patch('items/:item_id')
  @Access('full')
  @ApiOperation({ summary: 'Mark a plate item done', description: 'By the assignee or the assigner; idempotent. Others get 404.' })
  @ApiValidatedParams(PlateItemParam)
  @ApiValidatedBody(CompletePlateItemDto)
  @ApiData(200, PlateItemBody, 'The item, done.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND)
  async complete(
    @CurrentPrincipal() principal: Principal,
    @Param() params: PlateItemParam,
    @Body() _body: CompletePlateItemDto,
  ): Promise<{ data: PlateItemBody }> {
    const item = await this.commands.send(
      CompletePlateItem,
      { actor: actorOf(principal), plateItemId: params.item_id, done: true },
      { key: principal.memberId },
    );
    return { data: presentItem(item) };
  }

  /**
   * D-35 with read-your-writes: the assignee is resolved with
   * identity (cached like credentials), so a member created a moment ago is
   * assignable at once and a deactivated one is not.
   */
  private async assignee(principal: Principal, assigneeId: string): Promise<MemberProfileV1> {
    try {
      return await this.verifier.resolveMember(principal.workspaceId, assigneeId);
    } catch (err) {
      if (isDomainError(err) && err.code === ErrorCode.UNAUTHENTICATED) {
        throw new DomainError(ErrorCode.ASSIGNEE_NOT_FOUND, 'No such member in your workspace.', [
          { path: 'assignee_id', issue: 'unknown member' },
        ]);
      }
      throw err;
    }
  }
}
