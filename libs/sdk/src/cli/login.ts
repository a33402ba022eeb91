import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { dirname, join } from 'node:path';
import type { ReadStream } from 'node:tty';
import type { Readable } from 'node:stream';
import { UsageError, type Command } from './args';
import { ExitCode } from './exit-codes';

/** What `worktrack login` keeps: the API and the CLI's own API token. */
export interface StoredLogin {
  url: string;
  token: string;
}

/** `$WORKTRACK_CONFIG_DIR/config.json`, else `$XDG_CONFIG_HOME/worktrack/config.json`, else `~/.config/worktrack/config.json`. */
export function configPath(env: NodeJS.ProcessEnv): string {
  if (env.WORKTRACK_CONFIG_DIR) return join(env.WORKTRACK_CONFIG_DIR, 'config.json');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'worktrack', 'config.json');
}

/** The kept login, or undefined when there is none (or it is unreadable). */
export function readStoredLogin(env: NodeJS.ProcessEnv): StoredLogin | undefined {
  try {
    const value = JSON.parse(readFileSync(configPath(env), 'utf8')) as Partial<StoredLogin>;
    return typeof value.url === 'string' && typeof value.token === 'string' ? { url: value.url, token: value.token } : undefined;
  } catch {
    return undefined;
  }
}

/** Written to a temporary file first, readable by the user only, then renamed: never half a file, never world-readable. */
function storeLogin(env: NodeJS.ProcessEnv, login: StoredLogin): string {
  const path = configPath(env);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
  return path;
}

export interface LoginIo {
  env: NodeJS.ProcessEnv;
  stdin: Readable;
  out: (text: string) => void;
  err: (text: string) => void;
}

type LoginCommand = Extract<Command, { kind: 'login' }>;

class LoginFailure extends Error {
  constructor(
    message: string,
    readonly exit: ExitCode,
  ) {
    super(message);
  }
}

const isTty = (stream: Readable): stream is ReadStream => (stream as Partial<ReadStream>).isTTY === true;

/** Everything on stdin, without the final line break (`--password-stdin`). */
async function readAll(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Asks on the terminal; with `hidden`, what is typed is not echoed (raw mode, the characters are read one by one). */
function ask(io: LoginIo, question: string, hidden: boolean): Promise<string> {
  const input = io.stdin as ReadStream;
  io.err(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error): void => {
      input.removeListener('data', onData);
      if (hidden) input.setRawMode(false);
      input.pause();
      if (hidden) io.err('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string): void => {
      for (const ch of chunk.toString()) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') return finish(new UsageError('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    if (hidden) input.setRawMode(true);
    input.resume();
    input.on('data', onData);
  });
}

interface ErrorBody {
  error?: { code?: string; message?: string };
}

async function post(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown; response: Response }> {
  let response: Response;
  try {
    response = await fetch(`${url}/v1${path}`, {
      method: 'POST',
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), accept: 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new LoginFailure(`cannot reach ${url}: ${(err as Error).message}`, ExitCode.Unavailable);
  }
  return { status: response.status, json: await response.json().catch(() => null), response };
}

const failureOf = (status: number, json: unknown): LoginFailure => {
  const error = (json as ErrorBody | null)?.error;
  const text = `${status} ${error?.code ?? ''}: ${error?.message ?? 'the API refused'}`;
  const exit =
    status === 401 || status === 403 ? ExitCode.Auth : status >= 500 || status === 429 ? ExitCode.Unavailable : ExitCode.Rejected;
  return new LoginFailure(text, exit);
};

/**
 * `worktrack login`: signs in as a person (password, or an invite link that
 * sets one), creates an API token for this CLI, keeps it with the URL in the
 * config file, and ends the browser session the sign-in opened (the token is
 * what the CLI uses from now on).
 */
export async function runLogin(
  command: LoginCommand,
  io: LoginIo,
  rawUrl: string | undefined,
  normalise: (raw: string) => string,
): Promise<number> {
  try {
    let inviteToken: string | undefined;
    let url = rawUrl;
    if (command.invite !== undefined) {
      // A link (`<app>/accept-invite?token=…`) names its API; a bare secret needs --url.
      try {
        const link = new URL(command.invite);
        inviteToken = link.searchParams.get('token') ?? undefined;
        url ??= link.origin;
      } catch {
        inviteToken = command.invite;
      }
      if (!inviteToken) throw new UsageError('--invite must be the invite link (…/accept-invite?token=…) or its token');
    }
    if (!url) throw new UsageError('no API URL: pass --url or set WORKTRACK_URL');
    const api = normalise(url);
    const interactive = isTty(io.stdin);
    let email = command.email;
    if (!inviteToken && !email) {
      if (!interactive) throw new UsageError('--email is required when stdin is not a terminal');
      email = (await ask(io, 'Email: ', false)).trim();
    }
    let password: string;
    if (command.passwordStdin) password = await readAll(io.stdin);
    else if (interactive) password = await ask(io, inviteToken ? 'Choose a password (12 characters or more): ' : 'Password: ', true);
    else throw new UsageError('no password: run in a terminal to be asked, or pass --password-stdin');
    if (password === '') throw new UsageError('the password is empty');

    let signedIn = inviteToken
      ? await post(api, '/auth/accept-invite', { token: inviteToken, password, ...(command.name ? { display_name: command.name } : {}) })
      : await post(api, '/auth/login', { email, password, ...(command.code ? { totp_code: command.code } : {}) });
    if (signedIn.status === 401 && (signedIn.json as ErrorBody | null)?.error?.code === 'SECOND_FACTOR_REQUIRED' && !command.code) {
      if (!interactive) throw new LoginFailure('two-factor is on: pass --code with the 6 digits of your authenticator app', ExitCode.Auth);
      const code = (await ask(io, 'Authentication code: ', false)).trim();
      signedIn = await post(api, '/auth/login', { email, password, totp_code: code });
    }
    if (signedIn.status !== 200) throw failureOf(signedIn.status, signedIn.json);
    const session = (signedIn.json as { data: { access_token: string; member: { email: string | null; display_name: string } } }).data;

    const name = `worktrack CLI on ${hostname()}`.slice(0, 100);
    const created = await post(api, '/tokens', { name, scope: 'full' }, { authorization: `Bearer ${session.access_token}` });
    if (created.status !== 201) throw failureOf(created.status, created.json);
    const token = (created.json as { data: { token: string; token_id: string } }).data;

    // The sign-in's browser session is not needed any more (refresh cookie and the app's own origin).
    const cookie = signedIn.response.headers
      .getSetCookie()
      .find((c) => c.startsWith('wt_refresh='))
      ?.split(';')[0];
    if (cookie) await post(api, '/auth/logout', undefined, { cookie, origin: new URL(api).origin }).catch(() => undefined);

    const path = storeLogin(io.env, { url: api, token: token.token });
    io.err(
      `Signed in as ${session.member.email ?? session.member.display_name}; the API token "${name}" (${token.token_id}) is kept in ${path}\n`,
    );
    return ExitCode.Ok;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`worktrack: ${err.message}\n`);
      return ExitCode.Usage;
    }
    if (err instanceof LoginFailure) {
      io.err(`worktrack: ${err.message}\n`);
      return err.exit;
    }
    throw err;
  }
}
