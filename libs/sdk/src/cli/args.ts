import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EXIT_CODES_HELP } from './exit-codes';

/** The command line, parsed and checked; nothing here talks to the network. */
export type Command =
  | { kind: 'help'; text: string }
  | { kind: 'event'; eventType: string; source?: string; externalId?: string; payload?: Record<string, unknown>; occurredAt?: string }
  | { kind: 'event-batch'; source?: string }
  | {
      kind: 'session-start';
      intent: string;
      goalId?: string;
      projectId?: string;
      taskId?: string;
      estimateMin?: number;
      idempotencyKey?: string;
    }
  | { kind: 'session-pause'; sessionId?: string; reason?: string }
  | { kind: 'session-resume'; sessionId?: string }
  | { kind: 'session-close'; sessionId?: string; note?: string; closedAt?: string }
  | { kind: 'plate-assign'; assignee: string; title: string; date?: string }
  | { kind: 'plate'; date?: string }
  | {
      kind: 'usage-report';
      provider: string;
      model: string;
      externalId?: string;
      operation?: string;
      tokens: { input?: number; output?: number; cacheRead?: number; cacheCreation?: number; reasoning?: number };
      cost?: string;
      sessionId?: string;
      occurredAt?: string;
    }
  | { kind: 'usage-list'; from?: string; to?: string; sessionId?: string; provider?: string; model?: string; limit?: number }
  | {
      kind: 'report';
      report: 'summary' | 'sessions' | 'activity' | 'plate';
      from: string;
      to: string;
      tz?: string;
      groupBy?: string;
      memberId?: string;
      csv: boolean;
    }
  | { kind: 'me' }
  | { kind: 'flush' }
  | { kind: 'login'; email?: string; passwordStdin: boolean; invite?: string; name?: string; code?: string };

export interface Invocation {
  command: Command;
  url?: string;
  token?: string;
  json: boolean;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const HELP = `worktrack — report work to the worktrack API from scripts, CI jobs and cron

Usage: worktrack [--url URL] [--token TOKEN] [--json] <command> [options]

Commands:
  event <event_type> [--source S] [--external-id ID] [--payload JSON] [--occurred-at TIME]
        Record an activity event. Without --external-id one is generated, so a
        retry or a queued send is never stored twice. --source defaults to custom.
  event --batch [--source S]
        Read events from stdin, one JSON object per line (the API's event fields:
        event_type, source_type, external_id, payload, occurred_at), and send them
        in batches of 100. --source is the default source_type.
  session start "<intent>" [--goal-id UUID] [--project-id UUID] [--task-id UUID]
        [--estimate MINUTES] [--idempotency-key KEY]
        Start a timer session (closes your live one).
  session pause [<session_id>] [--reason TEXT]
  session resume [<session_id>]
  session close [<session_id>] [--note TEXT] [--closed-at TIME]
        Without an id: your current live session.
  plate assign <member_id> "<title>" [--date YYYY-MM-DD]
        Put an item on a teammate's plate.
  plate [--date YYYY-MM-DD]
        Your plate for a day (default: your today).
  usage report <provider> <model> [--input N] [--output N] [--cache-read N]
        [--cache-creation N] [--reasoning N] [--cost DECIMAL] [--external-id ID]
        [--operation OP] [--session-id UUID] [--occurred-at TIME]
        Report what a model call consumed. Cache tokens are part of --input,
        reasoning tokens part of --output; --cost is USD as a decimal (at most 9
        decimals), else the workspace price list computes one. Without
        --external-id one is generated (pass the provider's message or response
        id so retries are stored once).
  usage [list] [--from TIME] [--to TIME] [--session-id UUID] [--provider P] [--model M] [--limit N]
        Your usage records, newest first (one page).
  report [summary|sessions|activity|plate] [--from YYYY-MM-DD] [--to YYYY-MM-DD]
        [--tz ZONE] [--group-by KEYS] [--member-id UUID] [--csv]
        Where the time, events and spend went (default: the summary of the last
        7 days, grouped by day). --group-by takes up to two of member,
        member_kind, work_type, project, goal, day, week (comma-separated);
        --csv prints every row as CSV instead of a table.
  me    The member the token acts as.
  flush Send the events kept in the offline queue.
  login [--email EMAIL] [--password-stdin] [--code 123456]
  login --invite LINK [--name NAME] [--password-stdin]
        Sign in with your email and password (asked without echo in a
        terminal; --password-stdin reads it from stdin, for scripts), or accept
        an invite link and choose your password; then create an API token
        "worktrack CLI on <host>" and keep it, with the URL, in
        $WORKTRACK_CONFIG_DIR/config.json (default $XDG_CONFIG_HOME/worktrack,
        else ~/.config/worktrack; readable by you only). --code: the second
        factor, when two-factor is on (asked in a terminal).

Options:
  --url URL      API address, e.g. https://worktrack.example.com (env WORKTRACK_URL;
                 else the one \`worktrack login\` kept)
  --token TOKEN  API token or session JWT (env WORKTRACK_TOKEN; else the one
                 \`worktrack login\` kept)
  --json         Print the API's data as JSON on stdout (messages go to stderr)
  -h, --help     This text

Offline queue: when the API cannot be reached (no answer, 502, 503, 504 after
retries), events are appended to $WORKTRACK_QUEUE_DIR/queue.ndjson (default
$XDG_STATE_HOME/worktrack, else ~/.local/state/worktrack; at most 10,000 events
or 16 MiB) and sent with the same external ids by the next successful call or
\`worktrack flush\`. Events the API refuses while flushing are moved to
rejected.ndjson beside it.

${EXIT_CODES_HELP}
`;

const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  batch: { type: 'boolean' },
  source: { type: 'string' },
  'external-id': { type: 'string' },
  payload: { type: 'string' },
  'occurred-at': { type: 'string' },
  'goal-id': { type: 'string' },
  'project-id': { type: 'string' },
  'task-id': { type: 'string' },
  estimate: { type: 'string' },
  'idempotency-key': { type: 'string' },
  reason: { type: 'string' },
  note: { type: 'string' },
  'closed-at': { type: 'string' },
  date: { type: 'string' },
  input: { type: 'string' },
  output: { type: 'string' },
  'cache-read': { type: 'string' },
  'cache-creation': { type: 'string' },
  reasoning: { type: 'string' },
  cost: { type: 'string' },
  operation: { type: 'string' },
  'session-id': { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string' },
  limit: { type: 'string' },
  tz: { type: 'string' },
  'group-by': { type: 'string' },
  'member-id': { type: 'string' },
  csv: { type: 'boolean' },
  email: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  invite: { type: 'string' },
  name: { type: 'string' },
  code: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

type OptionName = keyof typeof OPTIONS;
type Values = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

const GLOBAL: OptionName[] = ['url', 'token', 'json', 'help'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
// RFC 3339 with an offset (D-3).
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

function only(values: Values, allowed: OptionName[], command: string): void {
  for (const name of Object.keys(values) as OptionName[]) {
    if (values[name] !== undefined && !GLOBAL.includes(name) && !allowed.includes(name)) {
      throw new UsageError(`--${name} does not apply to \`${command}\``);
    }
  }
}

function positionals(rest: string[], min: number, max: number, usage: string): string[] {
  if (rest.length < min || rest.length > max) throw new UsageError(`usage: worktrack ${usage}`);
  return rest;
}

function uuid(value: string | undefined, what: string): string | undefined {
  if (value !== undefined && !UUID.test(value)) throw new UsageError(`${what} must be a UUID, got "${value}"`);
  return value?.toLowerCase();
}

function dateTime(value: string | undefined, what: string): string | undefined {
  if (value !== undefined && (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value)))) {
    throw new UsageError(`${what} must be an RFC 3339 time with an offset, e.g. 2026-05-01T10:00:00Z; got "${value}"`);
  }
  return value;
}

function date(value: string | undefined): string | undefined {
  if (value !== undefined && !DATE.test(value)) throw new UsageError(`--date must be YYYY-MM-DD, got "${value}"`);
  return value;
}

function nonEmpty(value: string, what: string): string {
  if (value.trim() === '') throw new UsageError(`${what} must not be empty`);
  return value;
}

/** Parses a --payload value: a JSON object. */
export function parsePayload(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--payload is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError('--payload must be a JSON object');
  return value as Record<string, unknown>;
}

/** Parses argv (without node and the script). Throws UsageError. */
export function parseInvocation(argv: string[]): Invocation {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values } = parsed;
  const [name, ...rest] = parsed.positionals;
  const base = { url: values.url, token: values.token, json: values.json === true };
  if (values.help || name === undefined || name === 'help') {
    if (name === undefined && !values.help) throw new UsageError('a command is required (worktrack --help lists them)');
    return { ...base, command: { kind: 'help', text: HELP } };
  }
  return { ...base, command: parseCommand(name, rest, values) };
}

function parseCommand(name: string, rest: string[], values: Values): Command {
  switch (name) {
    case 'event': {
      if (values.batch) {
        only(values, ['batch', 'source'], 'event --batch');
        positionals(rest, 0, 0, 'event --batch [--source S] < events.ndjson');
        return { kind: 'event-batch', source: values.source };
      }
      only(values, ['source', 'external-id', 'payload', 'occurred-at'], 'event');
      const [eventType] = positionals(
        rest,
        1,
        1,
        'event <event_type> [--source S] [--external-id ID] [--payload JSON] [--occurred-at TIME]',
      );
      const externalId = values['external-id'];
      if (externalId !== undefined) nonEmpty(externalId, '--external-id');
      return {
        kind: 'event',
        eventType,
        source: values.source,
        externalId,
        payload: values.payload === undefined ? undefined : parsePayload(values.payload),
        occurredAt: dateTime(values['occurred-at'], '--occurred-at'),
      };
    }
    case 'session':
      return parseSession(rest, values);
    case 'plate': {
      if (rest[0] === 'assign') {
        only(values, ['date'], 'plate assign');
        const [, assignee, title] = positionals(rest, 3, 3, 'plate assign <member_id> "<title>" [--date YYYY-MM-DD]');
        return { kind: 'plate-assign', assignee: uuid(assignee, 'member_id')!, title: nonEmpty(title, 'title'), date: date(values.date) };
      }
      only(values, ['date'], 'plate');
      positionals(rest, 0, 0, 'plate [--date YYYY-MM-DD] | plate assign <member_id> "<title>"');
      return { kind: 'plate', date: date(values.date) };
    }
    case 'usage':
      return parseUsage(rest, values);
    case 'report':
      return parseReport(rest, values);
    case 'me':
      only(values, [], 'me');
      positionals(rest, 0, 0, 'me');
      return { kind: 'me' };
    case 'login': {
      only(values, ['email', 'password-stdin', 'invite', 'name', 'code'], 'login');
      positionals(
        rest,
        0,
        0,
        'login [--email EMAIL] [--password-stdin] [--code 123456] | login --invite LINK [--name NAME] [--password-stdin]',
      );
      if (values.invite !== undefined && values.email !== undefined)
        throw new UsageError('--invite and --email do not go together: the invite names the email');
      if (values.code !== undefined && !/^\d{6}$/.test(values.code))
        throw new UsageError('--code must be the 6 digits of your authenticator app');
      return {
        kind: 'login',
        email: values.email,
        passwordStdin: values['password-stdin'] === true,
        invite: values.invite === undefined ? undefined : nonEmpty(values.invite, '--invite'),
        name: values.name,
        code: values.code,
      };
    }
    case 'flush':
      only(values, [], 'flush');
      positionals(rest, 0, 0, 'flush');
      return { kind: 'flush' };
    default:
      throw new UsageError(`unknown command "${name}" (worktrack --help lists them)`);
  }
}

function parseSession(rest: string[], values: Values): Command {
  const [action, ...args] = rest;
  switch (action) {
    case 'start': {
      only(values, ['goal-id', 'project-id', 'task-id', 'estimate', 'idempotency-key'], 'session start');
      const [intent] = positionals(args, 1, 1, 'session start "<intent>" [--goal-id UUID] [--estimate MINUTES]');
      let estimateMin: number | undefined;
      if (values.estimate !== undefined) {
        estimateMin = Number(values.estimate);
        if (!/^\d+$/.test(values.estimate) || estimateMin < 1) throw new UsageError('--estimate must be a whole number of minutes');
      }
      return {
        kind: 'session-start',
        intent: nonEmpty(intent, 'intent'),
        goalId: uuid(values['goal-id'], '--goal-id'),
        projectId: uuid(values['project-id'], '--project-id'),
        taskId: uuid(values['task-id'], '--task-id'),
        estimateMin,
        idempotencyKey: values['idempotency-key'],
      };
    }
    case 'pause': {
      only(values, ['reason'], 'session pause');
      const [id] = positionals(args, 0, 1, 'session pause [<session_id>] [--reason TEXT]');
      return { kind: 'session-pause', sessionId: uuid(id, 'session_id'), reason: values.reason };
    }
    case 'resume': {
      only(values, [], 'session resume');
      const [id] = positionals(args, 0, 1, 'session resume [<session_id>]');
      return { kind: 'session-resume', sessionId: uuid(id, 'session_id') };
    }
    case 'close': {
      only(values, ['note', 'closed-at'], 'session close');
      const [id] = positionals(args, 0, 1, 'session close [<session_id>] [--note TEXT] [--closed-at TIME]');
      return {
        kind: 'session-close',
        sessionId: uuid(id, 'session_id'),
        note: values.note,
        closedAt: dateTime(values['closed-at'], '--closed-at'),
      };
    }
    default:
      throw new UsageError('usage: worktrack session start|pause|resume|close …');
  }
}

function count(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,10}$/.test(value) || Number(value) > 2_000_000_000) throw new UsageError(`${what} must be a whole number 0 .. 2000000000`);
  return Number(value);
}

function parseUsage(rest: string[], values: Values): Command {
  const [action, ...args] = rest;
  if (action === 'report') {
    only(
      values,
      ['input', 'output', 'cache-read', 'cache-creation', 'reasoning', 'cost', 'external-id', 'operation', 'session-id', 'occurred-at'],
      'usage report',
    );
    const [provider, model] = positionals(args, 2, 2, 'usage report <provider> <model> [--input N] [--output N] [--cost DECIMAL] …');
    const cost = values.cost;
    if (cost !== undefined && !/^(0|[1-9]\d{0,17})(\.\d{1,9})?$/.test(cost)) {
      throw new UsageError(`--cost must be a decimal with at most 9 decimals, e.g. 0.0042; got "${cost}"`);
    }
    const externalId = values['external-id'];
    if (externalId !== undefined) nonEmpty(externalId, '--external-id');
    return {
      kind: 'usage-report',
      provider: nonEmpty(provider, 'provider'),
      model: nonEmpty(model, 'model'),
      externalId,
      operation: values.operation,
      tokens: {
        input: count(values.input, '--input'),
        output: count(values.output, '--output'),
        cacheRead: count(values['cache-read'], '--cache-read'),
        cacheCreation: count(values['cache-creation'], '--cache-creation'),
        reasoning: count(values.reasoning, '--reasoning'),
      },
      cost,
      sessionId: uuid(values['session-id'], '--session-id'),
      occurredAt: dateTime(values['occurred-at'], '--occurred-at'),
    };
  }
  if (action !== undefined && action !== 'list') throw new UsageError('usage: worktrack usage report|list …');
  only(values, ['from', 'to', 'session-id', 'provider', 'model', 'limit'], 'usage list');
  positionals(args, 0, 0, 'usage [list] [--from TIME] [--to TIME] [--session-id UUID] [--provider P] [--model M] [--limit N]');
  let limit: number | undefined;
  if (values.limit !== undefined) {
    limit = Number(values.limit);
    if (!/^\d+$/.test(values.limit) || limit < 1 || limit > 100) throw new UsageError('--limit must be 1 .. 100');
  }
  return {
    kind: 'usage-list',
    from: dateTime(values.from, '--from'),
    to: dateTime(values.to, '--to'),
    sessionId: uuid(values['session-id'], '--session-id'),
    provider: values.provider,
    model: values.model,
    limit,
  };
}

const REPORTS = ['summary', 'sessions', 'activity', 'plate'] as const;

/** `report [name] [--from] [--to] [--tz] [--group-by] [--member-id] [--csv]`; the period defaults to the last 7 days. */
function parseReport(rest: string[], values: Values): Command {
  only(values, ['from', 'to', 'tz', 'group-by', 'member-id', 'csv'], 'report');
  const [name = 'summary'] = positionals(rest, 0, 1, 'report [summary|sessions|activity|plate] [--from YYYY-MM-DD] [--to YYYY-MM-DD] …');
  if (!(REPORTS as readonly string[]).includes(name)) throw new UsageError(`report must be one of ${REPORTS.join(', ')}, got "${name}"`);
  const day = (value: string | undefined, what: string): string | undefined => {
    if (value !== undefined && !DATE.test(value)) throw new UsageError(`${what} must be YYYY-MM-DD, got "${value}"`);
    return value;
  };
  const today = new Date();
  const to = day(values.to, '--to') ?? today.toISOString().slice(0, 10);
  const from = day(values.from, '--from') ?? new Date(Date.parse(`${to}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10);
  const groupBy = values['group-by'] ?? (name === 'summary' ? 'day' : undefined);
  return {
    kind: 'report',
    report: name as (typeof REPORTS)[number],
    from,
    to,
    ...(values.tz ? { tz: values.tz } : {}),
    ...(groupBy ? { groupBy } : {}),
    ...(values['member-id'] ? { memberId: uuid(values['member-id'], '--member-id') } : {}),
    csv: values.csv === true,
  };
}
