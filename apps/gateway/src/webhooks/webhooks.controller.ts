import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import {
  CreateWebhookEndpoint,
  DeleteWebhookEndpoint,
  ErrorCode,
  GetWebhookEndpoint,
  ListWebhookAttempts,
  ListWebhookEndpoints,
  RecoverWebhookMessages,
  ReplayWebhookMessage,
  RotateWebhookSecret,
  TestWebhookEndpoint,
  UpdateWebhookEndpoint,
} from '@worktrack/contracts';
import { CommandClient } from '@worktrack/platform';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { given } from '../http/given';
import { ApiData, ApiErrors, ApiPage } from '../openapi/api-responses';
import { ApiValidatedBody, ApiValidatedParams, ApiValidatedQuery } from '../openapi/validation-schemas';
import {
  CreateWebhookEndpointDto,
  presentWebhookAttempt,
  presentWebhookEndpoint,
  presentWebhookEndpointWithSecret,
  RecoverWebhookMessagesDto,
  UpdateWebhookEndpointDto,
  WebhookAttemptBody,
  WebhookEndpointBody,
  WebhookEndpointIdParam,
  WebhookEndpointWithSecretBody,
  WebhookIdParam,
  WebhookPageQueryDto,
  WebhookResendBody,
  WebhookTestBody,
} from './webhooks.dto';

const OWNERS_AND_ADMINS = 'Owners and admins only; plain members get 403.';

/** D-53, D-56: outbound webhook endpoints of the caller's workspace. */
@Controller('webhook-endpoints')
export class WebhookEndpointsController {
  constructor(private readonly commands: CommandClient) {}

  @Post()
  @HttpCode(201)
  @Access('full')
  @ApiOperation({
    summary: 'Register a webhook endpoint',
    description: `Messages of the named event types are POSTed to \`url\`, signed as Standard Webhooks. The secret is shown here and at rotation only. ${OWNERS_AND_ADMINS}`,
  })
  @ApiValidatedBody(CreateWebhookEndpointDto)
  @ApiData(201, WebhookEndpointWithSecretBody, 'The endpoint, with its signing secret (shown once).')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateWebhookEndpointDto,
  ): Promise<{ data: WebhookEndpointWithSecretBody }> {
    const endpoint = await this.commands.send(
      CreateWebhookEndpoint,
      {
        actor: actorOf(principal),
        url: body.url,
        eventTypes: body.event_types,
        ...(given(body.description) ? { description: body.description } : {}),
      },
      { key: principal.memberId },
    );
    return { data: presentWebhookEndpointWithSecret(endpoint) };
  }

  @Get()
  @Access('read')
  @ApiOperation({
    summary: "List the workspace's webhook endpoints",
    description: `Oldest first, never with a secret. ${OWNERS_AND_ADMINS}`,
  })
  @ApiValidatedQuery(WebhookPageQueryDto)
  @ApiPage(WebhookEndpointBody, 'A page of endpoints, oldest first.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.INVALID_CURSOR)
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: WebhookPageQueryDto,
  ): Promise<{ data: WebhookEndpointBody[]; meta: { cursor: string | null } }> {
    const page = await this.commands.send(
      ListWebhookEndpoints,
      { actor: actorOf(principal), limit: query.limit ?? 50, ...(query.cursor ? { cursor: query.cursor } : {}) },
      { key: principal.memberId },
    );
    return { data: page.endpoints.map(presentWebhookEndpoint), meta: { cursor: page.nextCursor ?? null } };
  }

  @Get(':endpoint_id')
  @Access('read')
  @ApiOperation({ summary: 'Read a webhook endpoint', description: `Never with its secret. ${OWNERS_AND_ADMINS}` })
  @ApiValidatedParams(WebhookEndpointIdParam)
  @ApiData(200, WebhookEndpointBody, 'The endpoint.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND)
  async get(@CurrentPrincipal() principal: Principal, @Param() params: WebhookEndpointIdParam): Promise<{ data: WebhookEndpointBody }> {
    const endpoint = await this.commands.send(
      GetWebhookEndpoint,
      { actor: actorOf(principal), endpointId: params.endpoint_id },
      { key: principal.memberId },
    );
    return { data: presentWebhookEndpoint(endpoint) };
  }

  @Patch(':endpoint_id')
  @Access('full')
  @ApiOperation({
    summary: 'Change a webhook endpoint',
    description: `Only the fields given change; \`enabled: true\` resumes a disabled endpoint. ${OWNERS_AND_ADMINS}`,
  })
  @ApiValidatedParams(WebhookEndpointIdParam)
  @ApiValidatedBody(UpdateWebhookEndpointDto)
  @ApiData(200, WebhookEndpointBody, 'The endpoint, changed.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND)
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param() params: WebhookEndpointIdParam,
    @Body() body: UpdateWebhookEndpointDto,
  ): Promise<{ data: WebhookEndpointBody }> {
    const endpoint = await this.commands.send(
      UpdateWebhookEndpoint,
      {
        actor: actorOf(principal),
        endpointId: params.endpoint_id,
        ...(given(body.url) ? { url: body.url } : {}),
        ...(given(body.event_types) ? { eventTypes: body.event_types } : {}),
        ...(given(body.description) ? { description: body.description } : {}),
        ...(given(body.enabled) ? { enabled: body.enabled } : {}),
      },
      { key: principal.memberId },
    );
    return { data: presentWebhookEndpoint(endpoint) };
  }

  @Delete(':endpoint_id')
  @Access('full')
  @ApiOperation({
    summary: 'Delete a webhook endpoint',
    description: `Nothing more is sent to it; its delivery log goes with it. ${OWNERS_AND_ADMINS}`,
  })
  @ApiValidatedParams(WebhookEndpointIdParam)
  @ApiData(200, WebhookEndpointBody, 'The endpoint, as it was.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND)
  async remove(@CurrentPrincipal() principal: Principal, @Param() params: WebhookEndpointIdParam): Promise<{ data: WebhookEndpointBody }> {
    const endpoint = await this.commands.send(
      DeleteWebhookEndpoint,
      { actor: actorOf(principal), endpointId: params.endpoint_id },
      { key: principal.memberId },
    );
    return { data: presentWebhookEndpoint(endpoint) };
  }

  @Post(':endpoint_id/rotate-secret')
  @HttpCode(200)
  @Access('full')
  @ApiOperation({
    summary: "Rotate a webhook endpoint's secret",
    description: `A new secret, shown once; for 24 hours every message carries a signature by the old one too. ${OWNERS_AND_ADMINS}`,
  })
  @ApiValidatedParams(WebhookEndpointIdParam)
  @ApiData(200, WebhookEndpointWithSecretBody, 'The endpoint, with its new secret.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND)
  async rotate(
    @CurrentPrincipal() principal: Principal,
    @Param() params: WebhookEndpointIdParam,
  ): Promise<{ data: WebhookEndpointWithSecretBody }> {
    const endpoint = await this.commands.send(
      RotateWebhookSecret,
      { actor: actorOf(principal), endpointId: params.endpoint_id },
      { key: principal.memberId },
    );
    return { data: presentWebhookEndpointWithSecret(endpoint) };
  }

  @Post(':endpoint_id/test')
  @HttpCode(202)
  @Access('full')
  @ApiOperation({
    summary: 'Send a test message',
    description: `A signed \`webhook.test\` message to this endpoint; its attempts appear in the log. ${OWNERS_AND_ADMINS}`,
  })
  @ApiValidatedParams(WebhookEndpointIdParam)
  @ApiData(202, WebhookTestBody, 'The message is queued.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND)
  async test(@CurrentPrincipal() principal: Principal, @Param() params: WebhookEndpointIdParam): Promise<{ data: WebhookTestBody }> {
    const sent = await this.commands.send(
      TestWebhookEndpoint,
      { actor: actorOf(principal), endpointId: params.endpoint_id },
      { key: principal.memberId },
    );
    return { data: { webhook_id: sent.webhookId } };
  }

  @Get(':endpoint_id/deliveries')
  @Access('read')
  @ApiOperation({
    summary: "Read an endpoint's delivery log",
    description: `Every attempt, newest first, kept 30 days. ${OWNERS_AND_ADMINS}`,
  })
  @ApiValidatedParams(WebhookEndpointIdParam)
  @ApiValidatedQuery(WebhookPageQueryDto)
  @ApiPage(WebhookAttemptBody, 'A page of attempts, newest first.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND, ErrorCode.INVALID_CURSOR)
  async deliveries(
    @CurrentPrincipal() principal: Principal,
    @Param() params: WebhookEndpointIdParam,
    @Query() query: WebhookPageQueryDto,
  ): Promise<{ data: WebhookAttemptBody[]; meta: { cursor: string | null } }> {
    const page = await this.commands.send(
      ListWebhookAttempts,
      {
        actor: actorOf(principal),
        endpointId: params.endpoint_id,
        limit: query.limit ?? 50,
        ...(query.cursor ? { cursor: query.cursor } : {}),
      },
      { key: principal.memberId },
    );
    return { data: page.attempts.map(presentWebhookAttempt), meta: { cursor: page.nextCursor ?? null } };
  }

  @Post(':endpoint_id/recover')
  @HttpCode(202)
  @Access('full')
  @ApiOperation({
    summary: 'Re-send failed messages',
    description: `Every message created since \`since\` whose latest attempt to this endpoint failed goes again, same webhook-id and body. ${OWNERS_AND_ADMINS}`,
  })
  @ApiValidatedParams(WebhookEndpointIdParam)
  @ApiValidatedBody(RecoverWebhookMessagesDto)
  @ApiData(202, WebhookResendBody, 'How many messages are queued again.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND)
  async recover(
    @CurrentPrincipal() principal: Principal,
    @Param() params: WebhookEndpointIdParam,
    @Body() body: RecoverWebhookMessagesDto,
  ): Promise<{ data: WebhookResendBody }> {
    const result = await this.commands.send(
      RecoverWebhookMessages,
      { actor: actorOf(principal), endpointId: params.endpoint_id, since: body.since },
      { key: principal.memberId },
    );
    return { data: { messages: result.messages } };
  }
}

/** D-56: one message again. */
@Controller('webhook-messages')
export class WebhookMessagesController {
  constructor(private readonly commands: CommandClient) {}

  @Post(':webhook_id/replay')
  @HttpCode(202)
  @Access('full')
  @ApiOperation({
    summary: 'Replay a webhook message',
    description: `Sends the message again, same webhook-id and body, to every endpoint of the workspace it went to. ${OWNERS_AND_ADMINS}`,
  })
  @ApiValidatedParams(WebhookIdParam)
  @ApiData(202, WebhookResendBody, 'How many deliveries are queued again.')
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND)
  async replay(@CurrentPrincipal() principal: Principal, @Param() params: WebhookIdParam): Promise<{ data: WebhookResendBody }> {
    const result = await this.commands.send(
      ReplayWebhookMessage,
      { actor: actorOf(principal), webhookId: params.webhook_id },
      { key: principal.memberId },
    );
    return { data: { messages: result.messages } };
  }
}
