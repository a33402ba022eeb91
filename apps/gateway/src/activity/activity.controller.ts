import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ErrorCode, IngestEvents, ListEvents } from '@worktrack/contracts';
import { CommandClient } from '@worktrack/platform';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { ApiData, ApiErrors, ApiPage } from '../openapi/api-responses';
import { ApiValidatedBody, ApiValidatedQuery } from '../openapi/validation-schemas';
import { parseActivityInput } from './activity-input';
import { ActivityBatchDto, ActivityEventDto, IngestedBody, presentEvent, StoredEventBody, TimelineQueryDto } from './activity.dto';

@Controller('activity/events')
export class ActivityController {
  constructor(private readonly commands: CommandClient) {}

  /**
   * 202 once the events are committed (D-20): one id per submitted event in
   * order; duplicates counted and answered with the first stored id (D-15, D-16).
   */
  @Post()
  @HttpCode(202)
  @Access('report')
  @ApiOperation({
    summary: 'Ingest activity events',
    description:
      'One ActivityEvent, or `{ events: [...] }` with at most 100. All or nothing; retries with the same `external_id` are deduplicated. ' +
      '202 means stored.',
  })
  @ApiValidatedBody(ActivityEventDto, ActivityBatchDto)
  @ApiData(202, IngestedBody, 'Stored: one id per submitted event, in order.')
  @ApiErrors(ErrorCode.PAYLOAD_CONTAINS_SECRET)
  async ingest(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<{ data: IngestedBody }> {
    const receivedAt = new Date();
    const events = parseActivityInput(body, receivedAt);
    const result = await this.commands.send(
      IngestEvents,
      { actor: actorOf(principal), receivedAt: receivedAt.toISOString(), events },
      { key: principal.memberId },
    );
    return { data: { accepted: result.accepted, deduplicated: result.deduplicated, event_ids: result.eventIds } };
  }

  /** D-21: the caller's timeline, newest first; `meta.cursor` fetches the next page. */
  @Get()
  @Access('read')
  @ApiOperation({ summary: 'Read your activity timeline', description: 'Newest first; `meta.cursor` fetches the next page.' })
  @ApiValidatedQuery(TimelineQueryDto)
  @ApiPage(StoredEventBody, 'A page of events, newest first.')
  @ApiErrors(ErrorCode.INVALID_CURSOR)
  async timeline(
    @CurrentPrincipal() principal: Principal,
    @Query() query: TimelineQueryDto,
  ): Promise<{ data: StoredEventBody[]; meta: { cursor: string | null } }> {
    const page = await this.commands.send(
      ListEvents,
      {
        actor: actorOf(principal),
        limit: query.limit ?? 50,
        ...(query.from ? { from: query.from } : {}),
        ...(query.to ? { to: query.to } : {}),
        ...(query.source_type ? { sourceType: query.source_type } : {}),
        ...(query.event_type ? { eventType: query.event_type } : {}),
        ...(query.session_id ? { sessionId: query.session_id } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      },
      { key: principal.memberId },
    );
    return { data: page.events.map(presentEvent), meta: { cursor: page.nextCursor ?? null } };
  }
}
