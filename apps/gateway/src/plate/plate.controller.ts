import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { AssignPlateItem, CompletePlateItem, ErrorCode, GetPlate } from '@worktrack/contracts';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { ApiData, ApiErrors } from '../openapi/api-responses';
import { ApiValidatedBody, ApiValidatedParams, ApiValidatedQuery } from '../openapi/validation-schemas';
import { CommandClientHost } from '../rpc/command-client.host';
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
  constructor(private readonly commands: CommandClientHost) {}

  /** D-32 … D-35. The command is keyed by the assignee: one member's plate is handled in order. */
  @Post('assign')
  @HttpCode(201)
  @Access('full')
  @ApiOperation({
    summary: "Put an item on a teammate's plate",
    description:
      "Respects the assignee's daily capacity; a full day overflows to the next working day with room (D-33). Capacity holds under concurrency (D-34).",
  })
  @ApiValidatedBody(AssignPlateDto)
  @ApiData(201, PlateAssignmentBody, 'Where the item landed.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.ASSIGNEE_NOT_FOUND, ErrorCode.PLATE_DATE_IN_PAST)
  async assign(@CurrentPrincipal() principal: Principal, @Body() body: AssignPlateDto): Promise<{ data: PlateAssignmentBody }> {
    const result = await this.commands.client.send(
      AssignPlateItem,
      {
        actor: actorOf(principal),
        assigneeId: body.assignee_id,
        title: body.title,
        ...(body.plate_date ? { plateDate: body.plate_date } : {}),
      },
      { key: body.assignee_id },
    );
    return { data: presentAssignment(result) };
  }

  /** First-party: your own plate for a day. */
  @Get()
  @Access('read')
  @ApiOperation({
    summary: 'Read your plate for a day',
    description: 'Default: your today in your timezone. Done items are listed with `done: true`.',
  })
  @ApiValidatedQuery(PlateQueryDto)
  @ApiData(200, PlateDayBody, 'The day.')
  async day(@CurrentPrincipal() principal: Principal, @Query() query: PlateQueryDto): Promise<{ data: PlateDayBody }> {
    const day = await this.commands.client.send(
      GetPlate,
      { actor: actorOf(principal), ...(query.date ? { date: query.date } : {}) },
      { key: principal.memberId },
    );
    return { data: presentDay(day) };
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
    const item = await this.commands.client.send(
      CompletePlateItem,
      { actor: actorOf(principal), plateItemId: params.item_id, done: true },
      { key: principal.memberId },
    );
    return { data: presentItem(item) };
  }
}
