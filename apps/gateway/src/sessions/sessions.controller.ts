import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import {
  CloseSession,
  DEFAULT_SESSIONS_PAGE_SIZE,
  ErrorCode,
  ListSessions,
  PauseSession,
  ResumeSession,
  StartSession,
  startTimesIssues,
} from '@worktrack/contracts';
import { CommandClient, DomainError } from '@worktrack/platform';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { ApiData, ApiErrors, ApiPage } from '../openapi/api-responses';
import { ApiValidatedBody, ApiValidatedParams, ApiValidatedQuery, validatedSchemaRef } from '../openapi/validation-schemas';
import {
  CloseSessionDto,
  ListSessionsQueryDto,
  PauseSessionDto,
  presentSession,
  SessionBody,
  SessionIdParam,
  StartSessionDto,
} from './sessions.dto';
import { given } from '../http/given';

/** D-3 for a route without a body: any field is unknown (an empty object, or no body, is fine). */
function rejectFields(body: unknown): void {
  if (body === undefined || body === null) return;
  const fields = typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [''];
  if (fields.length === 0) return;
  throw new DomainError(
    ErrorCode.VALIDATION_FAILED,
    'This request takes no body.',
    fields.map((field) =>
      field === '' ? { path: '', issue: 'no body is expected' } : { path: field, issue: `property ${field} should not exist` },
    ),
  );
}

/**
 * Work sessions (D-22 … D-30). Writes are `report`: a `report_only`
 * credential may run its own member's sessions (spec "Authentication" 5);
 * every command acts only on the principal's sessions.
 */
@Controller('sessions')
export class SessionsController {
  constructor(private readonly commands: CommandClient) {}

  @Post()
  @HttpCode(201)
  @Access('report')
  @ApiOperation({
    summary: 'Start or record a session',
    description:
      '`timer` starts a live session now and closes the previous live one at the new `started_at`. `manual` records a finished block, stored closed; it never closes a live session and may overlap others. ' +
      'With `idempotency_key`, a retry with the same body answers 201 with the session as it is now.',
  })
  @ApiValidatedBody(StartSessionDto)
  @ApiData(201, SessionBody, 'The session (for a repeated idempotency key: the one it created, as it is now).')
  @ApiErrors(ErrorCode.IDEMPOTENCY_KEY_REUSED)
  async start(@CurrentPrincipal() principal: Principal, @Body() body: StartSessionDto): Promise<{ data: SessionBody }> {
    const requestedAt = new Date();
    const issues = startTimesIssues({ source: body.source, startedAt: body.started_at, endedAt: body.ended_at }, requestedAt.getTime());
    if (issues.length > 0) throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', issues);
    const session = await this.commands.send(
      StartSession,
      {
        actor: actorOf(principal),
        requestedAt: requestedAt.toISOString(),
        intentText: body.intent_text,
        source: body.source,
        ...(given(body.goal_id) ? { goalId: body.goal_id } : {}),
        ...(given(body.task_id) ? { taskId: body.task_id } : {}),
        ...(given(body.project_id) ? { projectId: body.project_id } : {}),
        ...(given(body.estimated_duration_min) ? { estimatedDurationMin: body.estimated_duration_min } : {}),
        ...(given(body.work_type) ? { workType: body.work_type } : {}),
        ...(given(body.user_tags) ? { userTags: body.user_tags } : {}),
        ...(given(body.started_at) ? { startedAt: body.started_at } : {}),
        ...(given(body.ended_at) ? { endedAt: body.ended_at } : {}),
        ...(given(body.idempotency_key) ? { idempotencyKey: body.idempotency_key } : {}),
      },
      { key: principal.memberId },
    );
    return { data: presentSession(session) };
  }

  @Post(':session_id/pause')
  @HttpCode(200)
  @Access('report')
  @ApiOperation({ summary: 'Pause a session', description: 'Only an active session can be paused (else 409).' })
  @ApiValidatedParams(SessionIdParam)
  @ApiBody({ required: false, schema: validatedSchemaRef(PauseSessionDto) })
  @ApiData(200, SessionBody, 'The session, paused.')
  @ApiErrors(ErrorCode.SESSION_NOT_FOUND, ErrorCode.SESSION_STATE_CONFLICT)
  async pause(
    @CurrentPrincipal() principal: Principal,
    @Param() params: SessionIdParam,
    @Body() body: PauseSessionDto,
  ): Promise<{ data: SessionBody }> {
    const session = await this.commands.send(
      PauseSession,
      { actor: actorOf(principal), sessionId: params.session_id, ...(given(body.pause_reason) ? { pauseReason: body.pause_reason } : {}) },
      { key: principal.memberId },
    );
    return { data: presentSession(session) };
  }

  @Post(':session_id/resume')
  @HttpCode(200)
  @Access('report')
  @ApiOperation({ summary: 'Resume a session', description: 'Only a paused session can be resumed (else 409). No body.' })
  @ApiValidatedParams(SessionIdParam)
  @ApiData(200, SessionBody, 'The session, active again.')
  @ApiErrors(ErrorCode.SESSION_NOT_FOUND, ErrorCode.SESSION_STATE_CONFLICT)
  async resume(
    @CurrentPrincipal() principal: Principal,
    @Param() params: SessionIdParam,
    @Body() body: unknown,
  ): Promise<{ data: SessionBody }> {
    rejectFields(body);
    const session = await this.commands.send(
      ResumeSession,
      { actor: actorOf(principal), sessionId: params.session_id },
      { key: principal.memberId },
    );
    return { data: presentSession(session) };
  }

  @Post(':session_id/close')
  @HttpCode(200)
  @Access('report')
  @ApiOperation({
    summary: 'Close a session',
    description:
      'Active and paused sessions can be closed; a closed one is answered unchanged (idempotent). `closed_at` back-dates the close by up to 24 hours and is capped at the maximum session duration.',
  })
  @ApiValidatedParams(SessionIdParam)
  @ApiBody({ required: false, schema: validatedSchemaRef(CloseSessionDto) })
  @ApiData(200, SessionBody, 'The session, closed (or as it was, if it was closed already).')
  @ApiErrors(ErrorCode.SESSION_NOT_FOUND)
  async close(
    @CurrentPrincipal() principal: Principal,
    @Param() params: SessionIdParam,
    @Body() body: CloseSessionDto,
  ): Promise<{ data: SessionBody }> {
    const session = await this.commands.send(
      CloseSession,
      {
        actor: actorOf(principal),
        sessionId: params.session_id,
        ...(given(body.closing_note) ? { closingNote: body.closing_note } : {}),
        ...(given(body.closed_at) ? { closedAt: body.closed_at } : {}),
      },
      { key: principal.memberId },
    );
    return { data: presentSession(session) };
  }

  @Get()
  @Access('read')
  @ApiOperation({
    summary: 'List your sessions',
    description:
      "Newest `started_at` first, ties by `session_id`; `from`/`to` are inclusive calendar dates in the member's profile time zone; pages never skip or repeat a session while sessions are added.",
  })
  @ApiValidatedQuery(ListSessionsQueryDto)
  @ApiPage(SessionBody, 'A page of sessions; `meta.cursor` fetches the next one.')
  @ApiErrors(ErrorCode.INVALID_CURSOR)
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListSessionsQueryDto,
  ): Promise<{ data: SessionBody[]; meta: { cursor: string | null } }> {
    const page = await this.commands.send(
      ListSessions,
      {
        actor: actorOf(principal),
        limit: query.limit ?? DEFAULT_SESSIONS_PAGE_SIZE,
        ...(query.state ? { state: query.state } : {}),
        ...(query.from ? { from: query.from } : {}),
        ...(query.to ? { to: query.to } : {}),
        ...(query.goal_id ? { goalId: query.goal_id } : {}),
        ...(query.project_id ? { projectId: query.project_id } : {}),
        ...(query.cursor ? { cursor: query.cursor } : {}),
      },
      { key: principal.memberId },
    );
    return { data: page.sessions.map(presentSession), meta: { cursor: page.nextCursor ?? null } };
  }
}
