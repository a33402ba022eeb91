import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freePort,
  memberWithToken,
  repoRoot,
  runToEnd,
  startAppProcess,
  type AppProcess,
  type ChildRun as Run,
  type MemberWithToken,
} from '@worktrack/testing';
import { call } from './http';

const CLI = join(repoRoot(), 'dist', 'libs', 'sdk', 'src', 'cli', 'main.js');
const run = randomUUID().slice(0, 8);

/** `worktrack login` against the real identity service and gateway (D-38, D-39, D-43). */
describe('worktrack login end to end', () => {
  let identity: AppProcess;
  let gateway: AppProcess;
  let owner: MemberWithToken;
  let publicUrl: string;
  let home: string;

  /** The CLI as a real process; the config goes to a directory of the test's own. */
  const cli = (args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: repoRoot(),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        WORKTRACK_CONFIG_DIR: join(home, 'config'),
        WORKTRACK_QUEUE_DIR: join(home, 'queue'),
        ...options.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return runToEnd(child, options.stdin ?? '');
  };

  const stored = (): { url: string; token: string } =>
    JSON.parse(readFileSync(join(home, 'config', 'config.json'), 'utf8')) as { url: string; token: string };

  const inviteLink = async (email: string): Promise<string> => {
    const res = await call<{ data: { accept_url: string } }>(gateway.url, 'POST', '/v1/invites', { token: owner.token, body: { email } });
    expect(res.status).toBe(201);
    return res.body.data.accept_url;
  };

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'worktrack-login-'));
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    identity = await startAppProcess('identity', { PUBLIC_URL: publicUrl }, 60_000);
    gateway = await startAppProcess('gateway', { HTTP_PORT: String(port), PUBLIC_URL: publicUrl }, 60_000);
    owner = memberWithToken({ workspace: `cli-login-${run}`, email: `owner-${run}@example.com` });
  });

  afterAll(async () => {
    await Promise.all([gateway, identity].filter(Boolean).map((p) => p.stop()));
    rmSync(home, { recursive: true, force: true });
  });

  it('accepts an invite link with --password-stdin, keeps a token of its own readable by the user only, and later commands use it', async () => {
    const link = await inviteLink(`ada-${run}@example.com`);
    const password = `ada's cli password ${run}`;
    const login = await cli(['login', '--invite', link, '--name', 'Ada', '--password-stdin'], { stdin: `${password}\n` });
    expect(login).toMatchObject({ code: 0 });
    expect(login.stderr).toContain(`Signed in as ada-${run}@example.com`);
    expect(login.stderr).not.toContain(password);
    const kept = stored();
    expect(kept.url).toBe(publicUrl);
    expect(kept.token).toMatch(/^wt_[a-z2-7]{8}_[0-9A-Za-z]{43}$/);
    expect(login.stdout + login.stderr).not.toContain(kept.token);
    expect(statSync(join(home, 'config', 'config.json')).mode & 0o777).toBe(0o600);

    // No WORKTRACK_URL or WORKTRACK_TOKEN: the kept login.
    const me = await cli(['--json', 'me']);
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ email: `ada-${run}@example.com`, display_name: 'Ada' });
    const tokens = await call<{ data: Array<{ name: string }> }>(gateway.url, 'GET', '/v1/tokens', { token: kept.token });
    expect(tokens.body.data.map((t) => t.name)).toEqual([expect.stringMatching(/^worktrack CLI on /)]);
    // The browser session the sign-in opened is ended: the token is what the CLI uses.
    const sessions = await call<{ data: unknown[] }>(gateway.url, 'GET', '/v1/auth/sessions', { token: kept.token });
    expect(sessions.body.data).toEqual([]);

    // Signing in again with email and password replaces the kept token.
    const again = await cli(['login', '--url', `${publicUrl}/v1`, '--email', `ADA-${run}@example.com`, '--password-stdin'], {
      stdin: password,
    });
    expect(again.code).toBe(0);
    expect(stored().token).not.toBe(kept.token);
  });

  it('refuses a wrong password (exit 3, nothing kept), and asks for what is missing only on a terminal', async () => {
    const before = stored();
    const wrong = await cli(['login', '--url', publicUrl, '--email', `ada-${run}@example.com`, '--password-stdin'], {
      stdin: 'not the password at all',
    });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('INVALID_CREDENTIALS');
    expect(stored()).toEqual(before);
    const noEmail = await cli(['login', '--url', publicUrl, '--password-stdin'], { stdin: 'x' });
    expect(noEmail.code).toBe(2);
    expect(noEmail.stderr).toContain('--email is required when stdin is not a terminal');
    const noPassword = await cli(['login', '--url', publicUrl, '--email', `ada-${run}@example.com`]);
    expect(noPassword.code).toBe(2);
    expect(noPassword.stderr).toContain('pass --password-stdin');
  });

  it('on a terminal, asks for the password without echoing it', async () => {
    const link = await inviteLink(`bob-${run}@example.com`);
    const password = `bob typed this ${run}`;
    // `script` gives the CLI a real terminal; the password is typed once the prompt is there.
    const command = [process.execPath, CLI, 'login', '--invite', link].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', HOME: home, WORKTRACK_CONFIG_DIR: join(home, 'tty-config'), TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString('utf8');
      if (screen.includes('Choose a password') && !child.stdin.writableEnded) child.stdin.end(`${password}\r`);
    });
    // 'close', not 'exit': it follows the pipes' end, so the screen holds the last lines.
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(screen).toContain(`Signed in as bob-${run}@example.com`);
    expect(screen).not.toContain(password);
    expect(code).toBe(0);
  });
});
