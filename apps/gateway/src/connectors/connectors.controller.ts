import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { CreateConnector, DeleteConnector, ErrorCode, ListConnectors, ListDeliveries } from '@worktrack/contracts';
import { CommandClient } from '@worktrack/platform';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { ApiData, ApiErrors, ApiPage } from '../openapi/api-responses';
import { ApiValidatedBody, ApiValidatedParams, ApiValidatedQuery } from '../openapi/validation-schemas';
import { given } from '../http/given';
import { pageOf, PageQueryDto } from '../pagination/page-query.dto';
import {
  ConnectorBody,
  ConnectorIdParam,
  CreateConnectorDto,
  DeliveriesQueryDto,
  DeliveryBody,
  presentConnector,
  presentDelivery,
} from './connectors.dto';

/** D-36: connect provider accounts whose activity is written as a member's. */
@Controller('connectors')
export class ConnectorsController {
  constructor(private readonly commands: CommandClient) {}

  @Post()
  @HttpCode(201)
  @Access('full')
  @ApiOperation({
    summary: 'Connect a provider account',
    description:
      'github and slack need `secret` and answer at `hook_path`; calendar needs `feed_url` and is polled. Secrets are stored encrypted and never returned. ' +
      'The connector writes through the same path as POST /activity/events, as `member_id`, with a report_only token.',
  })
  @ApiValidatedBody(CreateConnectorDto)
  @ApiData(201, ConnectorBody, 'The connector.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateConnectorDto): Promise<{ data: ConnectorBody }> {
    const connector = await this.commands.send(
      CreateConnector,
      {
        actor: actorOf(principal),
        kind: body.kind,
        name: body.name,
        ...(given(body.member_id) ? { memberId: body.member_id } : {}),
        ...(given(body.account) ? { account: body.account } : {}),
        ...(given(body.secret) ? { secret: body.secret } : {}),
        ...(given(body.feed_url) ? { feedUrl: body.feed_url } : {}),
        ...(given(body.poll_interval_seconds) ? { pollIntervalSeconds: body.poll_interval_seconds } : {}),
      },
      { key: principal.memberId },
    );
    return { data: presentConnector(connector) };
  }

  @Get()
  @Access('read')
  @ApiOperation({ summary: 'List your connectors', description: 'Those acting for you and those you created; never with a secret.' })
  @ApiValidatedQuery(PageQueryDto)
  @ApiPage(ConnectorBody, 'A page of connectors, oldest first.')
  @ApiErrors(ErrorCode.INVALID_CURSOR)
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: PageQueryDto,
  ): Promise<{ data: ConnectorBody[]; meta: { cursor: string | null } }> {
    const page = await this.commands.send(ListConnectors, { actor: actorOf(principal), ...pageOf(query) }, { key: principal.memberId });
    return { data: page.connectors.map(presentConnector), meta: { cursor: page.nextCursor ?? null } };
  }

  @Delete(':connector_id')
  @Access('full')
  @ApiOperation({
    summary: 'Disconnect',
    description: 'Revokes the connector’s token; its hook answers 404 from then on. Events already stored stay.',
  })
  @ApiValidatedParams(ConnectorIdParam)
  @ApiData(200, ConnectorBody, 'The connector, as it was.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND)
  async remove(@CurrentPrincipal() principal: Principal, @Param() params: ConnectorIdParam): Promise<{ data: ConnectorBody }> {
    const connector = await this.commands.send(
      DeleteConnector,
      { actor: actorOf(principal), connectorId: params.connector_id },
      { key: principal.memberId },
    );
    return { data: presentConnector(connector) };
  }

  @Get(':connector_id/deliveries')
  @Access('read')
  @ApiOperation({
    summary: "Read a connector's delivery log",
    description:
      'Newest first: every verified delivery (or calendar poll that changed something or failed), with what was mapped, accepted and deduplicated, and why anything was ignored or failed.',
  })
  @ApiValidatedParams(ConnectorIdParam)
  @ApiValidatedQuery(DeliveriesQueryDto)
  @ApiPage(DeliveryBody, 'A page of deliveries, newest first.')
  @ApiErrors(ErrorCode.NOT_FOUND, ErrorCode.INVALID_CURSOR)
  async deliveries(
    @CurrentPrincipal() principal: Principal,
    @Param() params: ConnectorIdParam,
    @Query() query: DeliveriesQueryDto,
  ): Promise<{ data: DeliveryBody[]; meta: { cursor: string | null } }> {
    const page = await this.commands.send(
      ListDeliveries,
      {
        actor: actorOf(principal),
        connectorId: params.connector_id,
        limit: query.limit ?? 50,
        ...(query.cursor ? { cursor: query.cursor } : {}),
      },
      { key: principal.memberId },
    );
    return { data: page.deliveries.map(presentDelivery), meta: { cursor: page.nextCursor ?? null } };
  }
}
