import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { REQUEST_SCHEMAS, WorktrackError, type ErrorDetail, type OperationId, type WorktrackClient } from '@worktrack/sdk';

/** A JSON Schema object, as the generated request schemas hold them. */
type Schema = Record<string, unknown>;

interface ToolSpec {
  name: string;
  title: string;
  description: string;
  /** The API operation the tool calls, by its operationId in the published document. */
  operation: OperationId;
  /** Body fields the tool fills in when the caller leaves them out. */
  defaults?: Record<string, unknown>;
  readOnly: boolean;
  /** Calling it twice with the same arguments has the effect of once (keys, or the API's own rule). */
  idempotent: boolean;
}

/**
 * The tools, each one API operation. Their arguments are the operation's own
 * fields, named as the API names them: the input schema is built from the
 * operation's request schemas in the generated SDK (REQUEST_SCHEMAS, from the
 * OpenAPI document), never listed here.
 */
const SPECS: ToolSpec[] = [
  {
    name: 'whoami',
    title: 'Who am I',
    description: 'The member this credential acts as: ids, kind, role, display name, timezone, working hours and daily plate capacity.',
    operation: 'me.me',
    readOnly: true,
    idempotent: true,
  },
  {
    name: 'start_session',
    title: 'Start a work session',
    description:
      'Starts a timer session now (source defaults to `timer`); any previous live session of the member is closed at its start. ' +
      'With source `manual`, records a finished block instead (started_at and ended_at required). ' +
      'An idempotency_key is generated when absent, so a retried call returns the same session.',
    operation: 'sessions.start',
    defaults: { source: 'timer' },
    readOnly: false,
    idempotent: true,
  },
  {
    name: 'pause_session',
    title: 'Pause a session',
    description:
      'Pauses an active session, with an optional pause_reason. Pausing a session that is not active fails with SESSION_STATE_CONFLICT.',
    operation: 'sessions.pause',
    readOnly: false,
    idempotent: false,
  },
  {
    name: 'resume_session',
    title: 'Resume a session',
    description: 'Resumes a paused session. Resuming a session that is not paused fails with SESSION_STATE_CONFLICT.',
    operation: 'sessions.resume',
    readOnly: false,
    idempotent: false,
  },
  {
    name: 'close_session',
    title: 'Close a session',
    description:
      'Closes an active or paused session, with an optional closing_note; closed_at may back-date the close by up to 24 hours. ' +
      'Closing a closed session returns it unchanged.',
    operation: 'sessions.close',
    readOnly: false,
    idempotent: true,
  },
  {
    name: 'list_sessions',
    title: 'List sessions',
    description:
      'Your sessions, newest first, filtered by state, calendar dates (from/to, in your timezone), goal or project. ' +
      'Pass meta.cursor of a result as cursor for the next page.',
    operation: 'sessions.list',
    readOnly: true,
    idempotent: true,
  },
  {
    name: 'report_event',
    title: 'Report activity',
    description:
      'Reports one activity event (its fields: event_type, source_type, occurred_at, payload, external_id) or a batch as `events` (at most 100). ' +
      'Give each event a stable external_id (one is generated when absent): a retry with the same external_id is stored once. ' +
      'Payloads hold metadata only (at most 32 KB), never document bodies or secrets.',
    operation: 'activity.ingest',
    readOnly: false,
    idempotent: true,
  },
  {
    name: 'report_usage',
    title: 'Report usage',
    description:
      'Reports what a model or tool call consumed (D-45): external_id (the provider response or message id), provider, model, ' +
      'input_tokens and output_tokens (cache_read_input_tokens and cache_creation_input_tokens are part of input_tokens, ' +
      'reasoning_output_tokens part of output_tokens), optional cost { amount: decimal string, currency: "USD" }, or a batch as `usage` ' +
      '(at most 100). A retry with the same provider and external_id is stored once. Attributes hold metadata only: never prompts, ' +
      'completions or tool-call content.',
    operation: 'usage.report',
    readOnly: false,
    idempotent: true,
  },
  {
    name: 'assign_to_plate',
    title: "Put an item on a teammate's plate",
    description:
      "Puts an item (title) on a teammate's daily plate (assignee_id), today in their timezone unless plate_date is given. " +
      'A full day overflows to their next working day with room; the result says where it landed.',
    operation: 'plate.assign',
    readOnly: false,
    idempotent: false,
  },
  {
    name: 'my_plate',
    title: 'My plate',
    description: 'Your plate for a day (date, default today in your timezone): its items, how many are open, and your capacity.',
    operation: 'plate.day',
    readOnly: true,
    idempotent: true,
  },
  {
    name: 'get_report',
    title: 'Report where the time went',
    description:
      'Totals for a period (from and to, inclusive dates; tz, default yours): tracked and paused seconds, sessions, events in and ' +
      'outside sessions, usage cost and tokens, grouped by up to two of member, member_kind, work_type, project, goal, day, week ' +
      '(group_by, comma-separated, e.g. "member,day"). Owners and admins see the workspace, everyone else their own work. ' +
      'Answers "what did we do this week": from = Monday, to = today, group_by = "member".',
    operation: 'reports.summary',
    readOnly: true,
    idempotent: true,
  },
];

export const TOOL_NAMES = SPECS.map((s) => s.name);

/** What tools/list announces for one tool (the MCP `Tool` shape). */
export interface ToolDescription {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, Schema>; required?: string[]; additionalProperties: false };
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/** What tools/call answers (the MCP `CallToolResult` shape). */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const asSchema = (value: unknown): Schema => value as Schema;
const propertiesOf = (schema: Schema | null): Record<string, Schema> => (schema?.properties ?? {}) as Record<string, Schema>;
const requiredOf = (schema: Schema | null): string[] => (schema?.required ?? []) as string[];
/** A body may be one of several object shapes (one event, or a batch): the tool takes any of their fields. */
const variantsOf = (schema: Schema | null): Schema[] =>
  schema === null
    ? []
    : Array.isArray(schema.oneOf)
      ? (schema.oneOf as Schema[])
      : Array.isArray(schema.anyOf)
        ? (schema.anyOf as Schema[])
        : [schema];

interface CompiledTool {
  spec: ToolSpec;
  description: ToolDescription;
  method: string;
  pathNames: string[];
  /** The operation takes a JSON body (resume takes none). */
  hasBody: boolean;
  validatePath: ValidateFunction;
  validateRest: ValidateFunction;
}

function compile(spec: ToolSpec, ajv: Ajv2020): CompiledTool {
  const operation = REQUEST_SCHEMAS[spec.operation];
  const pathSchema = asSchema(operation.params.path);
  const querySchema = asSchema(operation.params.query);
  const bodySchema = operation.body === null ? null : asSchema(operation.body);
  const method = operation.method;
  const variants = method === 'GET' ? [querySchema] : variantsOf(bodySchema);

  const properties: Record<string, Schema> = { ...propertiesOf(pathSchema) };
  for (const variant of variants) Object.assign(properties, propertiesOf(variant));
  const defaults = spec.defaults ?? {};
  for (const [name, value] of Object.entries(defaults)) properties[name] = { ...properties[name], default: value };
  // Required: the path's, and what every body shape requires that the tool does not default.
  const common = variants.length === 0 ? [] : requiredOf(variants[0]).filter((name) => variants.every((v) => requiredOf(v).includes(name)));
  const required = [...requiredOf(pathSchema), ...common.filter((name) => !(name in defaults))];

  const rest = method === 'GET' ? querySchema : (bodySchema ?? { type: 'object', additionalProperties: false, properties: {} });
  return {
    spec,
    method,
    pathNames: Object.keys(propertiesOf(pathSchema)),
    hasBody: bodySchema !== null,
    validatePath: ajv.compile(pathSchema),
    validateRest: ajv.compile(rest),
    description: {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
      annotations: {
        title: spec.title,
        readOnlyHint: spec.readOnly,
        destructiveHint: false,
        idempotentHint: spec.idempotent,
        openWorldHint: false,
      },
    },
  };
}

/** `/events/1/event_type` → `events[1].event_type`, as the API names paths in `details`. */
function detailPath(error: ErrorObject, prefix = ''): string {
  const parts = error.instancePath.split('/').slice(1);
  if (error.keyword === 'required') parts.push(String((error.params as { missingProperty: string }).missingProperty));
  if (error.keyword === 'additionalProperties') parts.push(String((error.params as { additionalProperty: string }).additionalProperty));
  const path = parts.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
  return `${prefix}${path}`;
}

function validationError(errors: ErrorObject[]): WorktrackError {
  // oneOf reports every branch; the API names the fields, and so do we, once each.
  const details: ErrorDetail[] = [];
  for (const e of errors) {
    if (e.keyword === 'oneOf' || e.keyword === 'anyOf') continue;
    const detail = { path: detailPath(e) || '(arguments)', issue: e.message ?? e.keyword };
    if (!details.some((d) => d.path === detail.path && d.issue === detail.issue)) details.push(detail);
  }
  const shown = details.map((d) => `${d.path}: ${d.issue}`).join('; ');
  return new WorktrackError(400, 'VALIDATION_FAILED', `The arguments break the API's rules: ${shown || 'invalid'}.`, details);
}

export function errorResult(error: WorktrackError): ToolResult {
  const body = { code: error.code, message: error.message, ...(error.details.length > 0 ? { details: error.details } : {}) };
  return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}` }], structuredContent: { error: body } };
}

/** The tools over one SDK client: what to list, and how to call them. */
export class WorktrackTools {
  private readonly tools = new Map<string, CompiledTool>();

  constructor(private readonly client: WorktrackClient) {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    for (const spec of SPECS) this.tools.set(spec.name, compile(spec, ajv));
  }

  list(): ToolDescription[] {
    return [...this.tools.values()].map((t) => t.description);
  }

  /** Calls the API; every failure (the arguments, the API's answer, no answer) is a tool error whose text starts with the code. */
  async call(name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
    const tool = this.tools.get(name);
    if (!tool)
      return errorResult(new WorktrackError(404, 'NOT_FOUND', `There is no tool named ${name}; the tools are ${TOOL_NAMES.join(', ')}.`));
    try {
      const path: Record<string, string> = {};
      const rest: Record<string, unknown> = { ...tool.spec.defaults };
      for (const [key, value] of Object.entries(args)) {
        if (tool.pathNames.includes(key)) path[key] = value as string;
        else rest[key] = value;
      }
      if (!tool.validatePath(path)) throw validationError(tool.validatePath.errors ?? []);
      if (!tool.validateRest(rest)) throw validationError(tool.validateRest.errors ?? []);
      const body = await this.client.call(tool.spec.operation, {
        path,
        ...(tool.method === 'GET' ? { query: rest } : tool.hasBody ? { body: rest } : {}),
      });
      const structured = (body ?? {}) as Record<string, unknown>;
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
    } catch (err) {
      if (err instanceof WorktrackError) return errorResult(err);
      throw err;
    }
  }
}
