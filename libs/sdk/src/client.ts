import createClient, { type Client } from 'openapi-fetch';
import { WorktrackError } from './errors';
import type { components, operations, paths } from './generated/openapi';
import { REQUEST_SCHEMAS, type OperationId } from './generated/request-schemas';
import { paginate, type Page } from './paginate';
import type { UsageRecord } from './usage-records';
import { createTransport, DEFAULT_HOOKS, DEFAULT_RETRY, type FetchLike, type RetryOptions, type TransportHooks } from './transport';

type Schemas = components['schemas'];
type QueryOf<K extends keyof operations> = NonNullable<NonNullable<operations[K]['parameters']['query']>>;

export type Session = Schemas['SessionBody'];
export type StartSession = Schemas['StartSessionDto'];
export type PauseSession = Schemas['PauseSessionDto'];
export type CloseSession = Schemas['CloseSessionDto'];
/** One activity event to report. `payload` is any JSON object (at most 32 KB, no secrets: D-18). */
export type ActivityEvent = Omit<Schemas['ActivityEventDto'], 'payload'> & { payload?: Record<string, unknown> | null };
export type IngestResult = Schemas['IngestedBody'];
export type StoredEvent = Schemas['StoredEventBody'];
export type Member = Schemas['MemberBody'];
export type PlateAssignment = Schemas['PlateAssignmentBody'];
export type AssignToPlate = Schemas['AssignPlateDto'];
export type PlateDay = Schemas['PlateDayBody'];
export type Token = Schemas['TokenBody'];
export type CreatedToken = Schemas['CreatedTokenBody'];
export type CreateToken = Schemas['CreateTokenDto'];
export type RegisterAgent = Schemas['RegisterAgentDto'];
export type RegisteredAgent = Schemas['RegisteredAgentBody'];
export type UsageResult = Schemas['UsageIngestedBody'];
export type StoredUsage = Schemas['StoredUsageBody'];
export type ModelPriceList = Schemas['ModelPriceListBody'];
export type ModelPrices = Schemas['ModelPricesDto'];
export type SessionsQuery = QueryOf<'sessions.list'>;
export type UsageQuery = QueryOf<'usage.list'>;
export type TimelineQuery = QueryOf<'activity.timeline'>;
export type PlateQuery = QueryOf<'plate.day'>;
export type ReportQuery = QueryOf<'reports.summary'>;
export type ReportName = 'summary' | 'sessions' | 'activity' | 'plate';
export type SummaryRow = Schemas['SummaryRowBody'];
export type ReportMetrics = Schemas['ReportMetricsBody'];
export type ReportSessionRow = Schemas['ReportSessionRowBody'];
export type ActivityRow = Schemas['ActivityRowBody'];
export type PlateReportRow = Schemas['PlateRowBody'];
/** `meta` of every report: `as_of` (every write answered before it is included), the period and zone; the summary's totals; the sessions report's cursor. */
export interface ReportMeta {
  as_of: string;
  tz: string;
  from: string;
  to: string;
  totals?: ReportMetrics;
  cursor?: string | null;
}
export interface Report<T> {
  data: T[];
  meta: ReportMeta;
}

export interface WorktrackClientOptions {
  /** The API's base address, with or without its `/v1` version prefix (e.g. `https://api.example.com`). */
  baseUrl: string;
  /** An API token (`wt_..._...`) or a session JWT, sent as `Authorization: Bearer`. */
  token: string;
  /** Another fetch (tests, proxies); default the global one. */
  fetch?: FetchLike;
  /** Retry limits, or `false` to never retry. */
  retry?: Partial<RetryOptions> | false;
  /** @internal test seams */
  hooks?: Partial<TransportHooks>;
}

/** The typed client: every operation of the API through `api`, and helpers that return `data` or throw a {@link WorktrackError}. */
export interface WorktrackClient {
  /** The generated client (openapi-fetch) over every documented path, with auth, idempotency keys and retries. */
  readonly api: Client<paths>;
  me(): Promise<Member>;
  startSession(body: StartSession): Promise<Session>;
  pauseSession(sessionId: string, body?: PauseSession): Promise<Session>;
  resumeSession(sessionId: string): Promise<Session>;
  closeSession(sessionId: string, body?: CloseSession): Promise<Session>;
  listSessions(query?: SessionsQuery): Promise<Page<Session>>;
  /** Every page of sessions matching the filters: `for await (const page of client.sessionPages({ state: 'closed' }))`. */
  sessionPages(query?: Omit<SessionsQuery, 'cursor'>): AsyncGenerator<Page<Session>, void, undefined>;
  /** One event or a batch of at most 100; events without `external_id` get one, so retries never double-count (D-15). */
  reportEvents(events: ActivityEvent | ActivityEvent[]): Promise<IngestResult>;
  timeline(query?: TimelineQuery): Promise<Page<StoredEvent>>;
  /**
   * One usage record or a batch of at most 100 (D-45): tokens and cost of model
   * or tool calls. Retries are stored once by (provider, external_id) (D-46);
   * `usageFromAnthropicMessage` and `usageFromOpenAIResponse` build records.
   */
  reportUsage(usage: UsageRecord | UsageRecord[]): Promise<UsageResult>;
  listUsage(query?: UsageQuery): Promise<Page<StoredUsage>>;
  usagePages(query?: Omit<UsageQuery, 'cursor'>): AsyncGenerator<Page<StoredUsage>, void, undefined>;
  modelPrices(): Promise<ModelPriceList>;
  /** Replaces the workspace's whole price list (owners and admins, D-47). */
  setModelPrices(body: ModelPrices): Promise<ModelPriceList>;
  timelinePages(query?: Omit<TimelineQuery, 'cursor'>): AsyncGenerator<Page<StoredEvent>, void, undefined>;
  assignToPlate(body: AssignToPlate): Promise<PlateAssignment>;
  /** A day of the caller's plate; its items are paged (`meta.cursor`). */
  plate(query?: PlateQuery): Promise<{ data: PlateDay; meta: { cursor: string | null } }>;
  /** Totals per group for a period (`group_by`: up to two of member, member_kind, work_type, project, goal, day, week). */
  reportSummary(query: ReportQuery): Promise<Report<SummaryRow>>;
  /** Sessions overlapping a period, newest first (paged by `meta.cursor`). */
  reportSessions(query: ReportQuery): Promise<Report<ReportSessionRow>>;
  reportActivity(query: ReportQuery): Promise<Report<ActivityRow>>;
  reportPlate(query: ReportQuery): Promise<Report<PlateReportRow>>;
  /** Any report as CSV (RFC 4180, every row of the period). */
  reportCsv(report: ReportName, query: ReportQuery): Promise<string>;
  createToken(body: CreateToken): Promise<CreatedToken>;
  listTokens(): Promise<Token[]>;
  revokeToken(tokenId: string): Promise<void>;
  registerAgent(body: RegisterAgent): Promise<RegisteredAgent>;
  /**
   * Any operation by its operationId (see `REQUEST_SCHEMAS`), untyped: the
   * whole success body (`{ data, meta? }`; null for 204), or a WorktrackError.
   */
  call(operationId: OperationId, input?: OperationInput): Promise<unknown>;
}

export interface OperationInput {
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** openapi-fetch's `request`, without the per-path typing (for `call`). */
type LooseRequest = (
  method: string,
  url: string,
  init: { params: { path?: Record<string, string>; query?: Record<string, unknown> }; body?: unknown },
) => Promise<Result<unknown>>;

/** An openapi-fetch result: `data` on success, `error` (the parsed body) otherwise. */
interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The `data` of a successful answer, or the answer's {@link WorktrackError}.
 * Use it with `client.api` calls: `unwrap(await client.api.GET('/me'))`.
 */
export function unwrap<T>(result: Result<T>): T {
  if (result.response.ok && result.data !== undefined) return result.data;
  throw WorktrackError.fromResponse(result.response.status, result.error ?? null, result.response.headers.get('x-request-id'));
}

/** `https://host` and `https://host/v1/` both mean `https://host/v1`. */
export function apiBaseUrl(baseUrl: string): URL {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/v1') ? path : `${path}/v1`;
  url.search = '';
  url.hash = '';
  return url;
}

export function createWorktrackClient(options: WorktrackClientOptions): WorktrackClient {
  if (!options.token) throw new Error('createWorktrackClient: a token is required');
  const base = apiBaseUrl(options.baseUrl);
  const retry: RetryOptions = options.retry === false ? { ...DEFAULT_RETRY, maxAttempts: 1 } : { ...DEFAULT_RETRY, ...options.retry };
  const hooks: TransportHooks = { ...DEFAULT_HOOKS, ...options.hooks };
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const transport = createTransport({ token: options.token, basePath: base.pathname, fetch: send, retry, hooks });
  const api = createClient<paths>({ baseUrl: base.toString().replace(/\/$/, ''), fetch: wrapNetworkErrors(transport) });

  const data = async <T>(call: Promise<Result<{ data: T }>>): Promise<T> => unwrap(await call).data;
  const page = async <T>(call: Promise<Result<Page<T>>>): Promise<Page<T>> => unwrap(await call);
  const session = (sessionId: string) => ({ params: { path: { session_id: sessionId } } });

  const client: WorktrackClient = {
    api,
    me: () => data(api.GET('/me')),
    startSession: (body) => data(api.POST('/sessions', { body })),
    pauseSession: (sessionId, body = {}) => data(api.POST('/sessions/{session_id}/pause', { ...session(sessionId), body })),
    resumeSession: (sessionId) => data(api.POST('/sessions/{session_id}/resume', session(sessionId))),
    closeSession: (sessionId, body = {}) => data(api.POST('/sessions/{session_id}/close', { ...session(sessionId), body })),
    listSessions: (query = {}) => page(api.GET('/sessions', { params: { query } })),
    sessionPages: (query = {}) => paginate((cursor) => client.listSessions({ ...query, cursor })),
    reportEvents: (events) => {
      const body = (Array.isArray(events) ? { events } : events) as Schemas['ActivityEventDto'] | Schemas['ActivityBatchDto'];
      return data(api.POST('/activity/events', { body }));
    },
    timeline: (query = {}) => page(api.GET('/activity/events', { params: { query } })),
    timelinePages: (query = {}) => paginate((cursor) => client.timeline({ ...query, cursor })),
    reportUsage: (usage) => {
      const body = (Array.isArray(usage) ? { usage } : usage) as Schemas['UsageRecordDto'] | Schemas['UsageBatchDto'];
      return data(api.POST('/usage', { body }));
    },
    listUsage: (query = {}) => page(api.GET('/usage', { params: { query } })),
    usagePages: (query = {}) => paginate((cursor) => client.listUsage({ ...query, cursor })),
    modelPrices: () => data(api.GET('/model-prices')),
    setModelPrices: (body) => data(api.PUT('/model-prices', { body })),
    assignToPlate: (body) => data(api.POST('/plate/assign', { body })),
    plate: async (query = {}) => unwrap(await api.GET('/plate', { params: { query } })),
    reportSummary: async (query) => unwrap(await api.GET('/reports/summary', { params: { query } })) as Report<SummaryRow>,
    reportSessions: async (query) => unwrap(await api.GET('/reports/sessions', { params: { query } })) as Report<ReportSessionRow>,
    reportActivity: async (query) => unwrap(await api.GET('/reports/activity', { params: { query } })) as Report<ActivityRow>,
    reportPlate: async (query) => unwrap(await api.GET('/reports/plate', { params: { query } })) as Report<PlateReportRow>,
    reportCsv: async (report, query) => {
      const result = await api.GET(`/reports/${report}` as '/reports/summary', {
        params: { query },
        headers: { accept: 'text/csv' },
        parseAs: 'text',
      });
      return unwrap(result as unknown as Result<string>);
    },
    createToken: (body) => data(api.POST('/tokens', { body })),
    listTokens: () => data(api.GET('/tokens')),
    revokeToken: async (tokenId) => {
      const result = await api.DELETE('/tokens/{token_id}', { params: { path: { token_id: tokenId } } });
      if (!result.response.ok) unwrap(result);
    },
    registerAgent: (body) => data(api.POST('/agents', { body })),
    call: async (operationId, input = {}) => {
      const operation = REQUEST_SCHEMAS[operationId];
      if (!operation) throw new Error(`no operation ${String(operationId)}`);
      const request = api.request as unknown as LooseRequest;
      const result = await request(operation.method.toLowerCase(), operation.path, {
        params: { path: input.path, query: input.query },
        ...(input.body === undefined ? {} : { body: input.body }),
      });
      if (result.response.ok) return result.data ?? null;
      return unwrap(result);
    },
  };
  return client;
}

/** A request that got no answer at all (after any retries) is a WorktrackError too: status 0, `UNAVAILABLE`. */
function wrapNetworkErrors(fetch: FetchLike): FetchLike {
  return async (request) => {
    try {
      return await fetch(request);
    } catch (err) {
      if (request.signal.aborted || !(err instanceof TypeError)) throw err;
      throw new WorktrackError(0, 'UNAVAILABLE', `no answer from ${new URL(request.url).origin}: ${err.message}`, [], null, { cause: err });
    }
  };
}
