import { createHash, randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { ApiFailure, type ActivityEventInput, type EventsAccepted, type Session, type WorktrackApi } from './api-port';
import { parseInvocation, UsageError, type Command } from './args';
import { ExitCode } from './exit-codes';
import { BATCH_SIZE, badIndexes, flushQueue, type FlushResult } from './flush';
import { readStoredLogin, runLogin } from './login';
import { defaultQueueDir, OfflineQueue, QueueBusyError, QueueFullError, type QueueEntry } from './offline-queue';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdin: Readable;
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether stderr is a terminal: the batch progress line is drawn only then. */
  errIsTty: boolean;
}

export type ApiFactory = (url: string, token: string) => WorktrackApi;

/** The API root without `/v1` or trailing slashes: `WORKTRACK_URL` may name either. */
export function normaliseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`the API URL "${raw}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`the API URL must be http or https, got "${raw}"`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;
}

/**
 * Which API and member queued events belong to, without storing a secret:
 * an API token's public id (D-8), or a session JWT's workspace and subject
 * (D-11), else a hash. A flush sends only the entries of its own target.
 */
export function targetOf(url: string, token: string): string {
  const apiToken = /^(wt_[a-z2-7]{8})_/.exec(token);
  if (apiToken) return `${url} ${apiToken[1]}`;
  const parts = token.split('.');
  if (parts.length === 3) {
    try {
      const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as { wid?: unknown; sub?: unknown };
      if (typeof claims.wid === 'string' && typeof claims.sub === 'string') return `${url} jwt:${claims.wid}:${claims.sub}`;
    } catch {
      // not a JWT after all
    }
  }
  return `${url} sha256:${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
}

export const newExternalId = (): string => `wtcli-${randomUUID()}`;

/** Runs one invocation and resolves with its exit code. */
export async function runCli(argv: string[], io: CliIo, makeApi: ApiFactory): Promise<number> {
  let command: Command;
  let url: string;
  let token: string;
  let json: boolean;
  try {
    const invocation = parseInvocation(argv);
    if (invocation.command.kind === 'help') {
      io.out(invocation.command.text);
      return ExitCode.Ok;
    }
    if (invocation.command.kind === 'login')
      return await runLogin(invocation.command, io, invocation.url ?? io.env.WORKTRACK_URL, normaliseUrl);
    command = invocation.command;
    json = invocation.json;
    // What `worktrack login` kept, when neither the options nor the environment name the API and token.
    const stored = readStoredLogin(io.env);
    const rawUrl = invocation.url ?? io.env.WORKTRACK_URL ?? stored?.url;
    token = invocation.token ?? io.env.WORKTRACK_TOKEN ?? stored?.token ?? '';
    if (!rawUrl) throw new UsageError('no API URL: run `worktrack login`, set WORKTRACK_URL or pass --url');
    if (!token) throw new UsageError('no token: run `worktrack login`, set WORKTRACK_TOKEN or pass --token');
    url = normaliseUrl(rawUrl);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`worktrack: ${err.message}\n`);
      return ExitCode.Usage;
    }
    throw err;
  }
  const cli = new Cli(io, makeApi(url, token), new OfflineQueue(defaultQueueDir(io.env)), targetOf(url, token), json);
  return cli.run(command);
}

const SEVERITY: ExitCode[] = [ExitCode.Auth, ExitCode.QueueFull, ExitCode.Unavailable, ExitCode.Rejected, ExitCode.Queued, ExitCode.Ok];
const worst = (a: ExitCode, b: ExitCode): ExitCode => (SEVERITY.indexOf(a) <= SEVERITY.indexOf(b) ? a : b);

function exitOf(failure: ApiFailure): ExitCode {
  switch (failure.kind) {
    case 'auth':
      return ExitCode.Auth;
    case 'rejected':
      return ExitCode.Rejected;
    case 'unavailable':
    case 'unreachable':
      return ExitCode.Unavailable;
  }
}

function describe(failure: ApiFailure): string {
  const head = failure.status ? `${failure.status} ${failure.code ?? ''}`.trim() + `: ${failure.message}` : failure.message;
  const details = (failure.details ?? []).map((d) => `\n  ${d.path}: ${d.issue}`).join('');
  return head + details;
}

class Cli {
  constructor(
    private readonly io: CliIo,
    private readonly api: WorktrackApi,
    private readonly queue: OfflineQueue,
    private readonly target: string,
    private readonly json: boolean,
  ) {}

  async run(command: Exclude<Command, { kind: 'help' }>): Promise<ExitCode> {
    try {
      const code = await this.dispatch(command);
      if (code === ExitCode.Ok && command.kind !== 'flush') await this.flushAfterSuccess();
      return code;
    } catch (err) {
      if (err instanceof ApiFailure) {
        this.io.err(`worktrack: ${describe(err)}\n`);
        // With --json a script also gets the D-1 error object on stdout.
        if (this.json)
          this.io.out(
            `${JSON.stringify({ error: { status: err.status ?? 0, code: err.code ?? 'UNAVAILABLE', message: err.message, details: err.details ?? [] } })}\n`,
          );
        return exitOf(err);
      }
      if (err instanceof UsageError) {
        this.io.err(`worktrack: ${err.message}\n`);
        return ExitCode.Usage;
      }
      if (err instanceof QueueFullError || err instanceof QueueBusyError) {
        this.io.err(`worktrack: ${err.message}; the events were NOT recorded\n`);
        return ExitCode.QueueFull;
      }
      throw err;
    }
  }

  private print(data: unknown, human: string): void {
    this.io.out(this.json ? `${JSON.stringify(data)}\n` : `${human}\n`);
  }

  private async dispatch(command: Exclude<Command, { kind: 'help' }>): Promise<ExitCode> {
    switch (command.kind) {
      case 'event':
        return this.event(command);
      case 'event-batch':
        return this.batch(command.source);
      case 'session-start': {
        const session = await this.api.startSession({
          intent_text: command.intent,
          ...(command.goalId ? { goal_id: command.goalId } : {}),
          ...(command.projectId ? { project_id: command.projectId } : {}),
          ...(command.taskId ? { task_id: command.taskId } : {}),
          ...(command.estimateMin !== undefined ? { estimated_duration_min: command.estimateMin } : {}),
          ...(command.idempotencyKey ? { idempotency_key: command.idempotencyKey } : {}),
        });
        this.print(session, `started session ${session.session_id}: ${session.intent_text}`);
        return ExitCode.Ok;
      }
      case 'session-pause': {
        const id = command.sessionId ?? (await this.currentSession(['active'], 'pause'));
        const session = await this.api.sessionAction(id, 'pause', command.reason ? { pause_reason: command.reason } : undefined);
        this.print(session, `paused session ${session.session_id}`);
        return ExitCode.Ok;
      }
      case 'session-resume': {
        const id = command.sessionId ?? (await this.currentSession(['paused'], 'resume'));
        const session = await this.api.sessionAction(id, 'resume');
        this.print(session, `resumed session ${session.session_id}`);
        return ExitCode.Ok;
      }
      case 'session-close': {
        const id = command.sessionId ?? (await this.currentSession(['active', 'paused'], 'close'));
        const body = {
          ...(command.note ? { closing_note: command.note } : {}),
          ...(command.closedAt ? { closed_at: command.closedAt } : {}),
        };
        const session = await this.api.sessionAction(id, 'close', Object.keys(body).length > 0 ? body : undefined);
        this.print(session, `closed session ${session.session_id} (${session.started_at} – ${session.closed_at ?? ''})`);
        return ExitCode.Ok;
      }
      case 'plate-assign': {
        const result = await this.api.assignPlate({
          assignee_id: command.assignee,
          title: command.title,
          ...(command.date ? { plate_date: command.date } : {}),
        });
        const where = result.overflowed ? `${result.plate_date} (overflowed: the requested day was full)` : result.plate_date;
        this.print(result, `assigned ${result.plate_item_id} on ${where}; ${result.active_count}/${result.capacity} on that day`);
        return ExitCode.Ok;
      }
      case 'plate': {
        const day = await this.api.plate(command.date);
        const lines = day.items.map((item) => `  [${item.done ? 'x' : ' '}] ${item.title}  (${item.plate_item_id})`);
        this.print(day, [`plate for ${day.date}: ${day.active_count}/${day.capacity}`, ...lines].join('\n'));
        return ExitCode.Ok;
      }
      case 'usage-report': {
        const t = command.tokens;
        const result = await this.api.reportUsage([
          {
            external_id: command.externalId ?? newExternalId(),
            provider: command.provider,
            model: command.model,
            ...(command.operation ? { operation: command.operation } : {}),
            ...(t.input !== undefined ? { input_tokens: t.input } : {}),
            ...(t.output !== undefined ? { output_tokens: t.output } : {}),
            ...(t.cacheRead !== undefined ? { cache_read_input_tokens: t.cacheRead } : {}),
            ...(t.cacheCreation !== undefined ? { cache_creation_input_tokens: t.cacheCreation } : {}),
            ...(t.reasoning !== undefined ? { reasoning_output_tokens: t.reasoning } : {}),
            ...(command.cost !== undefined ? { cost: { amount: command.cost, currency: 'USD' as const } } : {}),
            ...(command.sessionId ? { session_id: command.sessionId } : {}),
            ...(command.occurredAt ? { occurred_at: command.occurredAt } : {}),
          },
        ]);
        const how = result.deduplicated > 0 ? 'already recorded' : 'recorded';
        this.print(result, `usage ${how}: ${result.usage_ids[0]}`);
        return ExitCode.Ok;
      }
      case 'usage-list': {
        const rows = await this.api.listUsage({
          ...(command.from ? { from: command.from } : {}),
          ...(command.to ? { to: command.to } : {}),
          ...(command.sessionId ? { session_id: command.sessionId } : {}),
          ...(command.provider ? { provider: command.provider } : {}),
          ...(command.model ? { model: command.model } : {}),
          ...(command.limit !== undefined ? { limit: command.limit } : {}),
        });
        const lines = rows.map(
          (u) =>
            `${u.occurred_at}  ${u.provider}/${u.model ?? '-'}  in ${u.input_tokens ?? 0} out ${u.output_tokens ?? 0}  ` +
            `${u.cost ? `$${u.cost.amount}` : '-'} (${u.cost_source})${u.session_id ? `  session ${u.session_id}` : ''}`,
        );
        this.print(rows, lines.length > 0 ? lines.join('\n') : 'no usage');
        return ExitCode.Ok;
      }
      case 'report': {
        const query = {
          from: command.from,
          to: command.to,
          ...(command.tz ? { tz: command.tz } : {}),
          ...(command.groupBy ? { group_by: command.groupBy } : {}),
          ...(command.memberId ? { member_id: command.memberId } : {}),
        };
        if (command.csv) {
          this.io.out(await this.api.reportCsv(command.report, query));
          return ExitCode.Ok;
        }
        const result = await this.api.report(command.report, query);
        this.print(result, reportTable(command.report, result.data, result.meta));
        return ExitCode.Ok;
      }
      case 'me': {
        const me = await this.api.me();
        const human = Object.entries(me)
          .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
          .join('\n');
        this.print(me, human);
        return ExitCode.Ok;
      }
      case 'flush':
        return this.flush();
      case 'login':
        // Handled before a token is needed (runLogin).
        throw new UsageError('login runs on its own');
    }
  }

  /** D-22: at most one live session; the list route finds it. */
  private async currentSession(states: Array<Session['state']>, verb: string): Promise<string> {
    for (const state of states) {
      const [session] = await this.api.listSessions(state);
      if (session) return session.session_id;
    }
    throw new ApiFailure('rejected', `no ${states.join(' or ')} session to ${verb}; pass a session id`, undefined, 'SESSION_NOT_FOUND');
  }

  private async event(command: Extract<Command, { kind: 'event' }>): Promise<ExitCode> {
    // The external id is fixed before the first attempt: the SDK's retries and a queued send reuse it (D-15).
    const event: ActivityEventInput & { external_id: string } = {
      event_type: command.eventType,
      external_id: command.externalId ?? newExternalId(),
      ...(command.source ? { source_type: command.source } : {}),
      ...(command.payload ? { payload: command.payload } : {}),
      ...(command.occurredAt ? { occurred_at: command.occurredAt } : {}),
    };
    const at = new Date().toISOString();
    try {
      const accepted = await this.api.sendEvents([event]);
      const duplicate = accepted.deduplicated > 0 ? ' (duplicate: stored before)' : '';
      this.print(
        { ...accepted, external_ids: [event.external_id] },
        `event ${accepted.event_ids[0] ?? ''} ${event.external_id}${duplicate}`,
      );
      return ExitCode.Ok;
    } catch (err) {
      if (!(err instanceof ApiFailure) || err.kind !== 'unreachable') throw err;
      this.enqueue([event], at);
      this.io.err(`worktrack: API unreachable (${describe(err)}); event queued offline as ${event.external_id}\n`);
      this.print({ queued: 1, external_ids: [event.external_id] }, `queued ${event.external_id}`);
      return ExitCode.Queued;
    }
  }

  /** Queued events keep the time they happened: the server's default (time of receipt) would be the flush. */
  private enqueue(events: Array<ActivityEventInput & { external_id: string }>, at: string): void {
    const entries: QueueEntry[] = events.map((event) => ({
      v: 1,
      target: this.target,
      queued_at: new Date().toISOString(),
      event: { ...event, occurred_at: event.occurred_at ?? at },
    }));
    this.queue.append(entries);
  }

  private async batch(source: string | undefined): Promise<ExitCode> {
    const summary = {
      accepted: 0,
      deduplicated: 0,
      queued: 0,
      /** Events not sent because the API failed (a 5xx or an auth error) part-way. */
      not_sent: 0,
      failed: [] as Array<{ line: number; code?: string; message: string }>,
    };
    let code: ExitCode = ExitCode.Ok;
    let offline = false;
    let stopped = false;
    let batches = 0;
    const progress = (): void => {
      if (this.io.errIsTty) {
        this.io.err(
          `\rsent ${summary.accepted} events in ${batches} batches, ${summary.deduplicated} duplicates, ${summary.queued} queued`,
        );
      }
    };
    const send = async (pending: Array<{ line: number; event: ActivityEventInput & { external_id: string } }>): Promise<void> => {
      if (pending.length === 0) return;
      if (stopped) {
        summary.not_sent += pending.length;
        return;
      }
      const at = new Date().toISOString();
      if (offline) {
        this.enqueue(
          pending.map((p) => p.event),
          at,
        );
        summary.queued += pending.length;
        return;
      }
      let attempt = pending;
      for (let round = 0; round < 2 && attempt.length > 0; round++) {
        try {
          const accepted: EventsAccepted = await this.api.sendEvents(attempt.map((p) => p.event));
          summary.accepted += accepted.accepted + accepted.deduplicated;
          summary.deduplicated += accepted.deduplicated;
          batches++;
          return;
        } catch (err) {
          if (!(err instanceof ApiFailure)) throw err;
          if (err.kind === 'unreachable') {
            offline = true;
            this.enqueue(
              attempt.map((p) => p.event),
              at,
            );
            summary.queued += attempt.length;
            code = worst(code, ExitCode.Queued);
            this.io.err(`${this.io.errIsTty ? '\n' : ''}worktrack: API unreachable (${describe(err)}); queueing the rest offline\n`);
            return;
          }
          if (err.kind !== 'rejected') {
            this.io.err(`${this.io.errIsTty ? '\n' : ''}worktrack: ${describe(err)}\n`);
            code = worst(code, exitOf(err));
            stopped = true;
            summary.not_sent += attempt.length;
            return;
          }
          // D-17 rejects the whole batch: report the events it names and send the others once more.
          const bad = badIndexes(err, attempt.length);
          const refused = bad.size > 0 && round === 0 ? attempt.filter((_, i) => bad.has(i)) : attempt;
          for (const [i, p] of attempt.entries()) {
            if (!refused.includes(p)) continue;
            const issues = (err.details ?? [])
              .filter((d) => d.path.startsWith(`events[${i}]`))
              .map((d) => `${d.path.replace(/^events\[\d+\]\.?/, '')}: ${d.issue}`);
            summary.failed.push({ line: p.line, code: err.code, message: issues.length > 0 ? issues.join('; ') : err.message });
          }
          code = worst(code, ExitCode.Rejected);
          attempt = attempt.filter((p) => !refused.includes(p));
        }
      }
    };

    let pending: Array<{ line: number; event: ActivityEventInput & { external_id: string } }> = [];
    let lineNo = 0;
    const lines = createInterface({ input: this.io.stdin, crlfDelay: Infinity });
    for await (const raw of lines) {
      lineNo++;
      if (raw.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch (err) {
        summary.failed.push({ line: lineNo, code: 'INVALID_JSON', message: (err as Error).message });
        code = worst(code, ExitCode.Rejected);
        continue;
      }
      if (
        typeof value !== 'object' ||
        value === null ||
        Array.isArray(value) ||
        typeof (value as { event_type?: unknown }).event_type !== 'string'
      ) {
        summary.failed.push({ line: lineNo, code: 'VALIDATION_FAILED', message: 'each line must be a JSON object with an event_type' });
        code = worst(code, ExitCode.Rejected);
        continue;
      }
      const input = value as ActivityEventInput;
      const event = { ...input, external_id: input.external_id ?? newExternalId() };
      if (source && input.source_type === undefined) event.source_type = source;
      pending.push({ line: lineNo, event });
      if (pending.length === BATCH_SIZE) {
        await send(pending);
        pending = [];
        progress();
      }
    }
    await send(pending);
    progress();
    if (this.io.errIsTty) this.io.err('\n');
    for (const failure of summary.failed) this.io.err(`worktrack: line ${failure.line}: ${failure.code ?? ''} ${failure.message}\n`);
    this.print(
      summary,
      `accepted ${summary.accepted} events (${summary.deduplicated} duplicates), ${summary.failed.length} failed, ${summary.queued} queued offline` +
        (summary.not_sent > 0 ? `, ${summary.not_sent} not sent` : ''),
    );
    return code;
  }

  private async flush(): Promise<ExitCode> {
    const result = await flushQueue(this.api, this.queue, this.target, {
      waitForLockMs: 60_000,
      onBatch: (sent, total) => {
        if (this.io.errIsTty) this.io.err(`\rflushed ${sent}/${total}`);
      },
    });
    if (this.io.errIsTty && result.sent > 0) this.io.err('\n');
    this.report(result);
    const { stoppedBy } = result;
    if (result.busy) return ExitCode.Queued;
    if (stoppedBy) return stoppedBy.kind === 'unreachable' ? ExitCode.Queued : exitOf(stoppedBy);
    return result.rejected > 0 ? ExitCode.Rejected : ExitCode.Ok;
  }

  private report(result: FlushResult): void {
    const { stoppedBy, ...figures } = result;
    const notes = [
      result.busy ? 'another worktrack process is flushing this queue' : '',
      stoppedBy ? `stopped: ${describe(stoppedBy)}` : '',
      result.rejected > 0 ? `${result.rejected} refused by the API, kept in ${this.queue.rejectedFile}` : '',
      result.otherTargets > 0 ? `${result.otherTargets} queued for another URL or token, left alone` : '',
    ].filter(Boolean);
    for (const note of notes) this.io.err(`worktrack: ${note}\n`);
    this.print(
      { ...figures, ...(stoppedBy ? { stopped_by: stoppedBy.code ?? stoppedBy.kind } : {}) },
      `flushed ${result.sent} events (${result.deduplicated} already stored), ${result.remaining} still queued`,
    );
  }

  /** "Flushed on the next successful call": best effort, never changes the command's outcome. */
  private async flushAfterSuccess(): Promise<void> {
    try {
      const queued = this.queue.read().entries.some((e) => e.target === this.target);
      if (!queued) return;
      const result = await flushQueue(this.api, this.queue, this.target, { waitForLockMs: 0 });
      if (result.sent > 0 || result.rejected > 0) {
        this.io.err(`worktrack: sent ${result.sent} queued events; ${result.remaining} still queued\n`);
      }
      if (result.rejected > 0)
        this.io.err(`worktrack: ${result.rejected} queued events refused by the API, kept in ${this.queue.rejectedFile}\n`);
    } catch (err) {
      this.io.err(`worktrack: could not flush the offline queue: ${(err as Error).message}\n`);
    }
  }
}

/** A report as an aligned text table: group keys first, then the metrics; the summary's totals last. */
export function reportTable(
  report: string,
  rows: Array<Record<string, unknown>>,
  meta: { as_of: string; tz: string; from: string; to: string; totals?: unknown },
): string {
  const flat = rows.map((row) => {
    const { group, ...rest } = row as { group?: Record<string, unknown> };
    return { ...(group ?? {}), ...rest };
  });
  const title = `${report} ${meta.from} … ${meta.to} (${meta.tz}), as of ${meta.as_of}`;
  if (flat.length === 0) return `${title}\nno rows`;
  const columns = [...new Set(flat.flatMap((r) => Object.keys(r)))];
  const text = (v: unknown): string =>
    v === null || v === undefined
      ? '-'
      : Array.isArray(v)
        ? v.join(';')
        : typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
          ? String(v)
          : JSON.stringify(v);
  const body = flat.map((r) => columns.map((c) => text((r as Record<string, unknown>)[c])));
  if (meta.totals)
    body.push(
      columns.map((c, i) => (i === 0 ? 'total' : c in (meta.totals as object) ? text((meta.totals as Record<string, unknown>)[c]) : '')),
    );
  const widths = columns.map((c, i) => Math.max(c.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [title, line(columns), ...body.map(line)].join('\n');
}
