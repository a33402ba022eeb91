import { Body, Controller, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ErrorCode, FindOwnedSessions, GetModelPrices, IngestUsage, ListUsage, PutModelPrices } from '@worktrack/contracts';
import { CommandClient, DomainError } from '@worktrack/platform';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { ApiData, ApiErrors, ApiPage } from '../openapi/api-responses';
import { ApiValidatedBody, ApiValidatedQuery } from '../openapi/validation-schemas';
import { foreignSessionDetails, parseUsageInput } from './usage-input';
import {
  ModelPriceListBody,
  ModelPricesDto,
  presentPrice,
  presentUsage,
  StoredUsageBody,
  UsageBatchDto,
  UsageIngestedBody,
  UsageQueryDto,
  UsageRecordDto,
} from './usage.dto';

@Controller('usage')
export class UsageController {
  constructor(private readonly commands: CommandClient) {}

  /**
   * 202 once the records are committed (D-45, D-20): one id per submitted
   * record in order; duplicates counted and answered with the first stored id
   * (D-46). A named session must be one of the caller's own (asked of the
   * sessions service before anything is stored).
   */
  @Post()
  @HttpCode(202)
  @Access('report')
  @ApiOperation({
    summary: 'Report usage',
    description:
      'One usage record, or `{ usage: [...] }` with at most 100: what a model or tool call consumed (tokens, cost). All or nothing; ' +
      'retries with the same `provider` and `external_id` are deduplicated. 202 means stored.',
  })
  @ApiValidatedBody(UsageRecordDto, UsageBatchDto)
  @ApiData(202, UsageIngestedBody, 'Stored: one id per submitted record, in order.')
  @ApiErrors(ErrorCode.PAYLOAD_CONTAINS_SECRET)
  async report(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<{ data: UsageIngestedBody }> {
    const receivedAt = new Date();
    const usage = parseUsageInput(body, receivedAt);
    const named = [...new Set(usage.flatMap((u) => (u.sessionId ? [u.sessionId] : [])))];
    if (named.length > 0) {
      const owned = await this.commands.send(
        FindOwnedSessions,
        { actor: actorOf(principal), sessionIds: named },
        { key: principal.memberId },
      );
      const details = foreignSessionDetails(usage, new Set(owned.sessionIds), typeof body === 'object' && body !== null && 'usage' in body);
      if (details.length > 0) throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid; nothing was stored.', details);
    }
    const result = await this.commands.send(
      IngestUsage,
      { actor: actorOf(principal), receivedAt: receivedAt.toISOString(), usage },
      { key: principal.memberId },
    );
    return { data: { accepted: result.accepted, deduplicated: result.deduplicated, usage_ids: result.usageIds } };
  }

  /** D-48: the caller's own records, newest `occurred_at` first; `meta.cursor` fetches the next page. */
  @Get()
  @Access('read')
  @ApiOperation({ summary: 'Read your usage', description: 'Newest first; `meta.cursor` fetches the next page.' })
  @ApiValidatedQuery(UsageQueryDto)
  @ApiPage(StoredUsageBody, 'A page of usage records, newest first.')
  @ApiErrors(ErrorCode.INVALID_CURSOR)
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: UsageQueryDto,
  ): Promise<{ data: StoredUsageBody[]; meta: { cursor: string | null } }> {
    const page = await this.commands.send(
      ListUsage,
      {
        actor: actorOf(principal),
        limit: query.limit ?? 50,
        ...(query.from ? { from: query.from } : {}),
        ...(query.to ? { to: query.to } : {}),
        ...(query.session_id ? { sessionId: query.session_id.toLowerCase() } : {}),
        ...(query.provider ? { provider: query.provider } : {}),
        ...(query.model ? { model: query.model } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      },
      { key: principal.memberId },
    );
    return { data: page.usage.map(presentUsage), meta: { cursor: page.nextCursor ?? null } };
  }
}

@Controller('model-prices')
export class ModelPricesController {
  constructor(private readonly commands: CommandClient) {}

  /** D-47: the workspace's price list, for any member. */
  @Get()
  @Access('read')
  @ApiOperation({
    summary: "Read the workspace's model prices",
    description: 'USD per million tokens; used to cost usage reported without one.',
  })
  @ApiData(200, ModelPriceListBody, 'The price list.')
  async get(@CurrentPrincipal() principal: Principal): Promise<{ data: ModelPriceListBody }> {
    const list = await this.commands.send(GetModelPrices, { actor: actorOf(principal) }, { key: principal.workspaceId });
    return { data: { prices: list.prices.map(presentPrice) } };
  }

  /** D-47: replaces the whole list; owners and admins with a `full` credential. */
  @Put()
  @Access('full')
  @ApiOperation({
    summary: "Replace the workspace's model prices",
    description:
      'Replaces the whole list (owners and admins). Applies to usage received afterwards without a reported cost; stored costs never change.',
  })
  @ApiValidatedBody(ModelPricesDto)
  @ApiData(200, ModelPriceListBody, 'The price list as stored.')
  @ApiErrors(ErrorCode.FORBIDDEN)
  async put(@CurrentPrincipal() principal: Principal, @Body() body: ModelPricesDto): Promise<{ data: ModelPriceListBody }> {
    const role = principal.profile?.role;
    if (role !== 'owner' && role !== 'admin') {
      throw new DomainError(ErrorCode.FORBIDDEN, 'Only owners and admins change the model prices.');
    }
    const list = await this.commands.send(
      PutModelPrices,
      {
        actor: actorOf(principal),
        prices: body.prices.map((p) => ({
          provider: p.provider,
          modelPattern: p.model_pattern,
          effectiveFrom: p.effective_from,
          input: p.input,
          output: p.output,
          ...(p.cache_read_input !== undefined ? { cacheReadInput: p.cache_read_input } : {}),
          ...(p.cache_creation_input !== undefined ? { cacheCreationInput: p.cache_creation_input } : {}),
          ...(p.reasoning_output !== undefined ? { reasoningOutput: p.reasoning_output } : {}),
        })),
      },
      { key: principal.workspaceId },
    );
    return { data: { prices: list.prices.map(presentPrice) } };
  }
}
