/**
 * The ingest benchmark's load, shared by the benches that run it: batches of
 * 100 activity events POSTed to /v1/activity/events from concurrent
 * keep-alive connections (autocannon), round-robin over members that each
 * have a running timer session, so every event gets linked by correlation.
 *
 * bench:ingest drives it for a fixed time and measures the pipeline;
 * bench:web drives it while it measures the web app under that load.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { mainOf, repoRoot } from '@worktrack/testing';
import { BATCH, eventsBody } from './usage-batches';

export { BATCH };

/** The load's options, read from the command line as bench:ingest spells them. */
export interface IngestLoadOptions {
  connections: number;
  members: number;
}

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

/** `--connections` (16) and `--members` (30 unless the bench says, enough to stay under 600 requests/minute each). */
export function ingestLoadOptions(defaults: Partial<IngestLoadOptions> = {}): IngestLoadOptions {
  return { connections: arg('connections', defaults.connections ?? 16), members: arg('members', defaults.members ?? 30) };
}

/**
 * `count` members of one new workspace with a `full` API token each, through
 * identity's bootstrap command (D-14) as the `memberWithToken` fixture runs
 * it, a few commands at a time (each is a node process of its own: on a busy
 * machine one after the other takes minutes).
 */
export async function createLoadMembers(count: number, workspace: string, role = 'member', parallel = 4): Promise<string[]> {
  const tokens: string[] = new Array<string>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          mainOf('identity'),
          'admin',
          'create-member',
          '--workspace',
          workspace,
          '--email',
          `load-${i}@${workspace}.example.com`,
          '--role',
          role,
        ],
        { cwd: repoRoot(), env: { ...process.env, LOG_LEVEL: 'error' }, timeout: 120_000 },
      );
      tokens[i] = (JSON.parse(stdout.trim()) as { token: string }).token;
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  return tokens;
}

/** One request's body: 100 events with external ids and ~200-byte payloads, all within the last 100 ms (the usage benches' events batch). */
export const batchBody = eventsBody;

/** A running timer session for each member (D-22), so correlation links every event of the load. */
export async function startTimerSessions(base: string, tokens: readonly string[]): Promise<void> {
  for (const token of tokens) {
    const res = await fetch(`${base}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ intent_text: 'bench', source: 'timer' }),
    });
    if (res.status !== 201) throw new Error(`could not start a session: ${res.status} ${await res.text()}`);
  }
}

export interface IngestLoad {
  /** Resolves with autocannon's result once the load ended (its duration ran out, or `stop()`). */
  done: Promise<autocannon.Result>;
  /** Ends the load early; `done` then resolves. */
  stop: () => void;
}

/**
 * Drives the load at `base` for `seconds` (or until `stop()`), each request
 * with the next member's token.
 */
export function driveIngest(base: string, tokens: readonly string[], connections: number, seconds: number): IngestLoad {
  return drivePosts({ url: `${base}/v1/activity/events`, tokens, connections, seconds, body: batchBody });
}

/**
 * POSTs `body(n)` to `url` from `connections` keep-alive connections for
 * `seconds` (or until `stop()`), request n with the token `tokens[n % length]`;
 * `rate` > 0 paces the whole load to that many requests a second.
 */
export function drivePosts(options: {
  url: string;
  tokens: readonly string[];
  connections: number;
  seconds: number;
  body: (n: number) => string;
  rate?: number;
}): IngestLoad {
  const { url, tokens, connections, seconds, body, rate = 0 } = options;
  let seq = 0;
  // Without a callback autocannon answers its instance made thenable (its types say only the promise); `stop()` ends it.
  const instance = autocannon({
    url,
    connections,
    duration: seconds,
    pipelining: 1,
    ...(rate > 0 ? { overallRate: rate } : {}),
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => {
          const n = seq++;
          return {
            ...req,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[n % tokens.length]}` },
            body: body(n),
          };
        },
      },
    ],
  }) as Promise<autocannon.Result> & { stop: () => void };
  return { done: Promise.resolve(instance), stop: () => instance.stop() };
}

/** What a load achieved: accepted requests and events a second, and its failures. */
export function loadSummary(result: autocannon.Result, fallbackSeconds: number): { ok: number; errors: number; eventsPerSecond: number } {
  const ok = result['2xx'];
  return {
    ok,
    errors: result.non2xx + result.errors + result.timeouts,
    eventsPerSecond: (ok * BATCH) / (result.duration || fallbackSeconds),
  };
}
