import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { Controller, Get, Query, Req, Res, StreamableFile } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiExtraModels, ApiOperation, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { stringify } from 'csv-stringify/sync';
import type { Type } from '@nestjs/common';
import { ErrorCode, GetReport, type GetReportV1, type ReportKind, type ReportMeta, type ReportV1 } from '@worktrack/contracts';
import { CommandClient } from '@worktrack/platform';
import { Access } from '../auth/access.decorator';
import { actorOf } from '../auth/actor';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import type { Principal } from '../auth/principal';
import { ApiErrors } from '../openapi/api-responses';
import { ApiValidatedQuery } from '../openapi/validation-schemas';
import { acceptsGzip } from './accept-encoding';
import { reportQuery } from './report-query';
import { ActivityRowBody, PlateRowBody, ReportMetricsBody, ReportQueryDto, ReportSessionRowBody, SummaryRowBody } from './reports.dto';

const gunzipAsync = promisify(gunzip);

const SESSION_COLUMNS = [
  'session_id',
  'member_id',
  'intent_text',
  'state',
  'source',
  'work_type',
  'goal_id',
  'project_id',
  'started_at',
  'closed_at',
  'user_tags',
  'created_at',
  'tracked_seconds',
  'paused_seconds',
  'linked_event_count',
  'usage_cost',
];
const ACTIVITY_COLUMNS = ['source_type', 'event_type', 'in_session', 'outside_session'];
const PLATE_COLUMNS = ['assignee_id', 'day', 'capacity', 'assigned', 'done', 'overflowed_in', 'overflowed_out'];
/** Rows per request when the sessions report is read whole for CSV. */
const CSV_PAGE = 1_000;

/** D-51: RFC 4180 — CRLF, one header row, every field quoted when it needs to be. */
const csvLines = (rows: unknown[][]): string => stringify(rows, { record_delimiter: '\r\n' });
const cell = (value: unknown): unknown => (value === null || value === undefined ? '' : Array.isArray(value) ? value.join(';') : value);

const wantsCsv = (accept: string | undefined): boolean => /(^|,)\s*text\/csv\b/i.test(accept ?? '');

/** One report's JSON and CSV answers in the document. */
function ApiReport(model: Type, description: string, extra: { totals?: boolean; cursor?: boolean } = {}): MethodDecorator {
  const meta = {
    type: 'object',
    required: ['as_of', 'tz', 'from', 'to', ...(extra.totals ? ['totals'] : []), ...(extra.cursor ? ['cursor'] : [])],
    additionalProperties: false,
    properties: {
      as_of: { type: 'string', format: 'date-time', description: 'Every write answered before this instant is included.' },
      tz: { type: 'string', examples: ['Europe/Berlin'] },
      from: { type: 'string', format: 'date' },
      to: { type: 'string', format: 'date' },
      ...(extra.totals ? { totals: { $ref: getSchemaPath(ReportMetricsBody) } } : {}),
      ...(extra.cursor
        ? { cursor: { type: 'string', nullable: true, description: 'Pass as `cursor` for the next page; null on the last page.' } }
        : {}),
    },
  };
  return (target, key, descriptor) => {
    ApiExtraModels(model, ReportMetricsBody)(target, key, descriptor);
    ApiResponse({
      status: 200,
      description,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['data', 'meta'],
            additionalProperties: false,
            properties: { data: { type: 'array', items: { $ref: getSchemaPath(model) } }, meta },
          },
        },
        'text/csv': {
          schema: {
            type: 'string',
            description: 'With `Accept: text/csv`: RFC 4180, one header row, every row of the period (not paged).',
            examples: ['day,tracked_seconds\r\n2026-03-02,3600\r\n'],
          },
        },
      },
    })(target, key, descriptor);
  };
}

/**
 * The reports (D-50 … D-52): parameters checked here, the rows from the
 * reporting service; JSON, or CSV when the client accepts `text/csv`.
 */
@Controller('reports')
export class ReportsController {
  constructor(private readonly commands: CommandClient) {}

  @Get('summary')
  @Access('read')
  @ApiOperation({
    summary: 'Report totals per group',
    description:
      'Tracked and paused time, sessions, events in and outside sessions, usage cost and tokens for a period, grouped by up to two keys. ' +
      'Sessions crossing midnight in `tz` are split; a live session counts up to `meta.as_of`.',
  })
  @ApiValidatedQuery(ReportQueryDto)
  @ApiReport(SummaryRowBody, 'One row per group with any activity, and the totals.', { totals: true })
  @ApiErrors(ErrorCode.VALIDATION_FAILED)
  async summary(
    @CurrentPrincipal() p: Principal,
    @Query() q: ReportQueryDto,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const command: GetReportV1 = { actor: actorOf(p), ...reportQuery('summary', q, p.profile?.timezone ?? 'UTC') };
    const csv = wantsCsv(req.headers.accept);
    const result = await this.send(csv ? { ...command, format: 'csv' } : command);
    if (result.body === undefined) throw new Error('the summary answered without its document');
    // The document as the reporting service wrote it (D-50, D-51), gzip-compressed: passed through, never parsed here.
    const gzipped = Buffer.from(result.body, 'base64');
    void reply.type(csv ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
    if (csv) void reply.header('content-disposition', `inline; filename="summary-${command.from}-${command.to}.csv"`);
    void reply.header('vary', 'accept-encoding');
    // A client that takes no gzip gets the document inflated in zlib's thread pool, off the event loop.
    if (!acceptsGzip(req.headers['accept-encoding'])) return gunzipAsync(gzipped);
    void reply.header('content-encoding', 'gzip');
    return gzipped;
  }

  @Get('sessions')
  @Access('read')
  @ApiOperation({
    summary: 'Report sessions',
    description: 'One row per session overlapping the period, newest first, with its events and spend.',
  })
  @ApiValidatedQuery(ReportQueryDto)
  @ApiReport(ReportSessionRowBody, 'A page of sessions, newest first.', { cursor: true })
  @ApiErrors(ErrorCode.VALIDATION_FAILED, ErrorCode.INVALID_CURSOR)
  sessions(@CurrentPrincipal() p: Principal, @Query() q: ReportQueryDto, @Req() req: FastifyRequest) {
    return this.answer('sessions', p, q, req.headers.accept);
  }

  @Get('activity')
  @Access('read')
  @ApiOperation({ summary: 'Report activity', description: 'Events per source and event type, in and outside sessions.' })
  @ApiValidatedQuery(ReportQueryDto)
  @ApiReport(ActivityRowBody, 'One row per source and event type.')
  @ApiErrors(ErrorCode.VALIDATION_FAILED)
  activity(@CurrentPrincipal() p: Principal, @Query() q: ReportQueryDto, @Req() req: FastifyRequest) {
    return this.answer('activity', p, q, req.headers.accept);
  }

  @Get('plate')
  @Access('read')
  @ApiOperation({
    summary: 'Report plates',
    description: 'Per assignee and day: capacity, items assigned, done and overflowed; future days allowed.',
  })
  @ApiValidatedQuery(ReportQueryDto)
  @ApiReport(PlateRowBody, 'One row per assignee and day with items.')
  @ApiErrors(ErrorCode.VALIDATION_FAILED)
  plate(@CurrentPrincipal() p: Principal, @Query() q: ReportQueryDto, @Req() req: FastifyRequest) {
    return this.answer('plate', p, q, req.headers.accept);
  }

  private async answer(
    report: ReportKind,
    principal: Principal,
    query: ReportQueryDto,
    accept: string | undefined,
  ): Promise<{ data: Array<Record<string, unknown>>; meta: ReportMeta } | StreamableFile> {
    const command: GetReportV1 = { actor: actorOf(principal), ...reportQuery(report, query, principal.profile?.timezone ?? 'UTC') };
    if (wantsCsv(accept)) return this.csv(command);
    const result = await this.send(command);
    const meta: ReportMeta = { as_of: result.asOf, tz: command.tz, from: command.from, to: command.to };
    if (report === 'sessions') meta.cursor = result.nextCursor ?? null;
    return { data: result.rows, meta };
  }

  private send(command: GetReportV1): Promise<ReportV1> {
    return this.commands.send(GetReport, command, { key: command.actor.memberId });
  }

  /** Every row of the period as CSV, streamed: the sessions report page by page. */
  private async csv(command: GetReportV1): Promise<StreamableFile> {
    const disposition = `inline; filename="${command.report}-${command.from}-${command.to}.csv"`;
    const first = await this.send(command.report === 'sessions' ? { ...command, limit: CSV_PAGE } : command);
    const columns = command.report === 'sessions' ? SESSION_COLUMNS : command.report === 'activity' ? ACTIVITY_COLUMNS : PLATE_COLUMNS;
    const line = (row: Record<string, unknown>): unknown[] => columns.map((c) => cell(row[c]));
    const send = (c: GetReportV1): Promise<ReportV1> => this.send(c);
    async function* chunks(): AsyncGenerator<string> {
      yield csvLines([columns]);
      let page = first;
      for (;;) {
        if (page.rows.length > 0) yield csvLines(page.rows.map(line));
        if (command.report !== 'sessions' || !page.nextCursor) return;
        page = await send({ ...command, limit: CSV_PAGE, cursor: page.nextCursor });
      }
    }
    return new StreamableFile(Readable.from(chunks()), { type: 'text/csv; charset=utf-8', disposition });
  }
}
