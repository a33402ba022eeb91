import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** The `worktrack` command (the SDK package's bin, `cli/main.js`), built, as a real process. */
const CLI = join(repoRoot(), 'dist', 'libs', 'sdk', 'src', 'cli', 'main.js');

interface TimelineEvent {
  event_id: string;
  source_type: string;
  event_type: string;
  occurred_at: string;
  payload: Record<string, unknown>;
  external_id: string | null;
}

const run8 = randomUUID().slice(0, 8);

/** The `worktrack` CLI against the real stack: exit codes, output, NDJSON batches, the offline queue and its crash safety. */
describe('worktrack CLI end to end', () => {
  jest.setTimeout(300_000); // processes on a shared machine; the flushes move thousands of events
  let identity: AppProcess;
  let ingestion: AppProcess;
  let sessions: AppProcess;
  let plate: AppProcess;
  let gateway: AppProcess;
  let port: number;
  let queueDir: string;

  const startGateway = () => startAppProcess('gateway', { HTTP_PORT: String(port), REQUEST_TIMEOUT_MS: '2000' }, 120_000);
  const member = (name: string): MemberWithToken => memberWithToken({ workspace: `cli-${run8}`, email: `${name}-${run8}@example.com` });

  function env(token: string, extraEnv: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '',
      HOME: queueDir, // never the developer's real queue
      WORKTRACK_URL: `http://127.0.0.1:${port}/v1`,
      WORKTRACK_TOKEN: token,
      WORKTRACK_QUEUE_DIR: queueDir,
      ...extraEnv,
    };
  }

  function spawnCli(args: string[], token: string, extraEnv: Record<string, string> = {}): ChildProcess {
    return spawn(process.execPath, [CLI, ...args], { cwd: repoRoot(), env: env(token, extraEnv), stdio: ['pipe', 'pipe', 'pipe'] });
  }

  function run(
    command: string,
    args: string[],
    token: string,
    options: { stdin?: string; env?: Record<string, string> } = {},
  ): Promise<Run> {
    const child = spawn(command, args, { cwd: repoRoot(), env: env(token, options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    return runToEnd(child, options.stdin ?? '');
  }

  function cli(args: string[], token: string, options: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
    return runToEnd(spawnCli(args, token, options.env), options.stdin ?? '');
  }

  /** Every event of one source in the member's timeline (all pages). */
  async function timeline(token: string, source: string): Promise<TimelineEvent[]> {
    const all: TimelineEvent[] = [];
    let cursor: string | null = null;
    do {
      const qs: string = `source_type=${source}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await call<{ data: TimelineEvent[]; meta: { cursor: string | null } }>(gateway.url, 'GET', `/v1/activity/events?${qs}`, {
        token,
      });
      expect(page.status).toBe(200);
      all.push(...page.body.data);
      cursor = page.body.meta.cursor;
    } while (cursor);
    return all;
  }

  const queued = (): Array<{ target: string; event: { external_id: string } }> => {
    const file = join(queueDir, 'queue.ndjson');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { target: string; event: { external_id: string } });
  };

  const ndjson = (n: number, source: string, prefix: string): string =>
    Array.from({ length: n }, (_, i) =>
      JSON.stringify({ event_type: 'job.run', source_type: source, external_id: `${prefix}-${i}`, payload: { i } }),
    ).join('\n') + '\n';

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run node scripts/build.mjs first`);
    port = await freePort();
    // Generous start-up bounds: the machine is shared.
    [identity, ingestion, sessions, plate] = await Promise.all(
      ['identity', 'ingestion', 'sessions', 'plate'].map((app) => startAppProcess(app, {}, 120_000)),
    );
    gateway = await startGateway();
  });

  beforeEach(() => {
    queueDir = mkdtempSync(join(tmpdir(), 'wt-cli-e2e-'));
  });
  afterEach(() => rmSync(queueDir, { recursive: true, force: true }));

  afterAll(async () => {
    await Promise.all([gateway, plate, sessions, ingestion, identity].filter(Boolean).map((p) => p.stop()));
  });

  it('reports a deploy with the issue example, once, and a retry with the same external id is a duplicate (D-15)', async () => {
    const m = member('deploy');
    const args = ['event', 'deploy', '--source', 'ci', '--external-id', 'run-4711', '--payload', '{"env":"prod"}'];
    const first = await cli([...args, '--json'], m.token);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(first.stdout)).toMatchObject({ accepted: 1, deduplicated: 0, external_ids: ['run-4711'] });
    const again = await cli(args, m.token);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/run-4711 \(duplicate: stored before\)/);
    const events = await timeline(m.token, 'ci');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event_type: 'deploy', external_id: 'run-4711', payload: { env: 'prod' } });
  });

  it('maps failures to exit codes: usage 2, bad token 3, refused 4', async () => {
    const m = member('codes');
    expect(await cli(['event'], m.token)).toMatchObject({ code: 2, stdout: '' });
    const unauth = await cli(['me'], `wt_aaaaaaaa_${'b'.repeat(43)}`);
    expect(unauth.code).toBe(3);
    expect(unauth.stderr).toMatch(/401 UNAUTHENTICATED/);
    const unauthJson = await cli(['me', '--json'], `wt_aaaaaaaa_${'b'.repeat(43)}`);
    expect(unauthJson.code).toBe(3);
    expect(JSON.parse(unauthJson.stdout)).toMatchObject({ error: { status: 401, code: 'UNAUTHENTICATED' } }); // D-1 shape for scripts
    const secret = await cli(['event', 'deploy', '--payload', JSON.stringify({ key: `ghp_${'a'.repeat(36)}` })], m.token);
    expect(secret.code).toBe(4);
    expect(secret.stderr).toMatch(/PAYLOAD_CONTAINS_SECRET/);
    expect(queued()).toEqual([]); // refused events are not queued
    const help = await cli(['--help'], m.token);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit codes:/);
  });

  it('reads the URL and token from --url and --token ahead of the environment, and names what is missing (exit 2)', async () => {
    const m = member('flags');
    // The environment names a closed port and a token of nobody: the flags must win.
    const wrongEnv = { WORKTRACK_URL: 'http://127.0.0.1:9/v1', WORKTRACK_TOKEN: `wt_aaaaaaaa_${'b'.repeat(43)}` };
    const me = await cli(['me', '--json', '--url', `http://127.0.0.1:${port}`, '--token', m.token], m.token, { env: wrongEnv });
    expect(me).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(me.stdout)).toMatchObject({ member_id: m.memberId });
    const noUrl = await cli(['me'], m.token, { env: { WORKTRACK_URL: '' } });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toMatch(/set WORKTRACK_URL or pass --url/);
    const noToken = await cli(['me'], m.token, { env: { WORKTRACK_TOKEN: '' } });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/set WORKTRACK_TOKEN or pass --token/);
  });

  it('runs a session and the plate: start, pause, resume and close without an id; assign; me', async () => {
    const m = member('session');
    const teammate = member('mate');
    const started = await cli(['--json', 'session', 'start', 'ship the CLI'], m.token);
    expect(started.code).toBe(0);
    const session = JSON.parse(started.stdout) as { session_id: string; state: string };
    expect(session.state).toBe('active');
    for (const [verb, state] of [
      ['pause', 'paused'],
      ['resume', 'active'],
      ['close', 'closed'],
    ] as const) {
      const res = await cli(['session', verb, '--json'], m.token);
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ session_id: session.session_id, state });
    }
    const none = await cli(['session', 'close'], m.token);
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(/no active or paused session to close/);

    const assigned = await cli(['plate', 'assign', teammate.memberId, 'review the queue', '--json'], m.token);
    expect(assigned.code).toBe(0);
    expect(JSON.parse(assigned.stdout)).toMatchObject({ assignee_id: teammate.memberId, overflowed: false, active_count: 1 });
    const mine = await cli(['plate'], teammate.token);
    expect(mine.code).toBe(0);
    expect(mine.stdout).toMatch(/\[ \] review the queue/);
    const me = await cli(['me', '--json'], m.token);
    expect(JSON.parse(me.stdout)).toMatchObject({ member_id: m.memberId, email: `session-${run8}@example.com` });
  });

  it('sends NDJSON from stdin in batches of 100, reports bad lines by number and stores the rest', async () => {
    const m = member('batch');
    const lines = ndjson(250, 'cron', 'b').split('\n');
    lines[120] = '{"event_type": "job.run", "source_type": "cron", "occurred_at": "not a time"}'; // line 121
    lines[7] = 'not json'; // line 8
    const res = await cli(['event', '--batch', '--json'], m.token, { stdin: lines.join('\n') });
    expect(res.code).toBe(4);
    expect(JSON.parse(res.stdout)).toMatchObject({ accepted: 248, queued: 0, failed: [{ line: 8 }, { line: 121 }] });
    expect(res.stderr).toMatch(/line 8: INVALID_JSON/);
    expect(res.stderr).toMatch(/line 121: VALIDATION_FAILED occurred_at/);
    expect(res.stderr).not.toContain('\r'); // no progress line when stderr is not a terminal
    expect(await timeline(m.token, 'cron')).toHaveLength(248);
  });

  it('draws a progress line when stderr is a terminal', async () => {
    const m = member('tty');
    const input = join(queueDir, 'in.ndjson');
    writeFileSync(input, ndjson(201, 'tty', 't'));
    // util-linux `script` gives the CLI a pseudo-terminal (its output is the terminal's).
    const res = await run('script', ['-qec', `"${process.execPath}" "${CLI}" event --batch < "${input}"`, '/dev/null'], m.token);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/\rsent 100 events in 1 batches.*\rsent 200 events in 2 batches.*\rsent 201 events in 3 batches/s);
    expect(await timeline(m.token, 'tty')).toHaveLength(201);
  });

  describe('offline queue', () => {
    // Queued while the API is down, one member (and so one queue target) per scenario.
    let down: MemberWithToken;
    let crash: MemberWithToken;
    let window: MemberWithToken;
    let twice: MemberWithToken;
    let dirs: { down: string; crash: string; window: string; twice: string };
    const downIds: string[] = [];

    beforeAll(async () => {
      [down, crash, window, twice] = [member('down'), member('crash'), member('window'), member('twice')];
      const newDir = () => mkdtempSync(join(tmpdir(), 'wt-q-'));
      dirs = { down: newDir(), crash: newDir(), window: newDir(), twice: newDir() };
      await gateway.stop(); // the API is down: nothing listens on its port

      for (let i = 0; i < 3; i++) {
        const res = await cli(['event', 'deploy', '--source', 'offline', '--json'], down.token, {
          env: { WORKTRACK_QUEUE_DIR: dirs.down },
        });
        expect(res.code).toBe(6);
        expect(res.stderr).toMatch(/API unreachable .*event queued offline as wtcli-/);
        downIds.push(...(JSON.parse(res.stdout) as { external_ids: string[] }).external_ids);
      }
      const batch = await cli(['event', '--batch', '--json'], down.token, {
        stdin: ndjson(150, 'offline', 'down'),
        env: { WORKTRACK_QUEUE_DIR: dirs.down },
      });
      expect(batch.code).toBe(6);
      expect(JSON.parse(batch.stdout)).toMatchObject({ accepted: 0, queued: 150 });

      // Eight CLIs queueing at once (the queue lock keeps every line whole).
      const parallel = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          cli(['event', 'deploy', '--source', 'offline', '--external-id', `p-${i}`], twice.token, {
            env: { WORKTRACK_QUEUE_DIR: dirs.twice },
          }),
        ),
      );
      expect(parallel.map((r) => r.code)).toEqual(Array(8).fill(6));
      for (const [m, dir, n] of [
        [crash, dirs.crash, 2000],
        [window, dirs.window, 300],
        [twice, dirs.twice, 492],
      ] as const) {
        const res = await cli(['event', '--batch'], m.token, { stdin: ndjson(n, 'offline', 'q'), env: { WORKTRACK_QUEUE_DIR: dir } });
        expect(res.code).toBe(6);
      }
      gateway = await startGateway(); // the API is back, on the same address
    });

    afterAll(() => Object.values(dirs).forEach((d) => rmSync(d, { recursive: true, force: true })));

    it('keeps events while the API is unreachable (exit 6) and `worktrack flush` sends each exactly once', async () => {
      queueDir = dirs.down;
      expect(queued()).toHaveLength(153);
      const flushAt = Date.now();
      const flushed = await cli(['flush', '--json'], down.token);
      expect(flushed.code).toBe(0);
      expect(JSON.parse(flushed.stdout)).toMatchObject({ sent: 153, deduplicated: 0, rejected: 0, remaining: 0 });
      expect(queued()).toEqual([]);
      const events = await timeline(down.token, 'offline');
      expect(events).toHaveLength(153);
      expect(new Set(events.map((e) => e.external_id)).size).toBe(153);
      expect(events.map((e) => e.external_id)).toEqual(expect.arrayContaining(downIds));
      // Queued events keep the time they happened, not the time of the flush.
      const deploy = events.find((e) => e.external_id === downIds[0])!;
      expect(Date.parse(deploy.occurred_at)).toBeLessThan(flushAt);
      expect(await cli(['flush', '--json'], down.token)).toMatchObject({ code: 0 });
    });

    it('sends queued events again after a crash between the API answer and the queue rewrite, stored once (D-15)', async () => {
      queueDir = dirs.window;
      const before = join(queueDir, 'before.ndjson');
      copyFileSync(join(queueDir, 'queue.ndjson'), before);
      const first = await cli(['flush', '--json'], window.token);
      expect(JSON.parse(first.stdout)).toMatchObject({ sent: 300, deduplicated: 0, remaining: 0 });
      copyFileSync(before, join(queueDir, 'queue.ndjson')); // as if killed right after the 202s, before the rewrite
      const second = await cli(['flush', '--json'], window.token);
      expect(second.code).toBe(0);
      expect(JSON.parse(second.stdout)).toMatchObject({ sent: 300, deduplicated: 300, remaining: 0 });
      const events = await timeline(window.token, 'offline');
      expect(events).toHaveLength(300);
      expect(new Set(events.map((e) => e.external_id)).size).toBe(300);
    });

    it('loses and doubles nothing when the CLI is killed -9 in the middle of a flush', async () => {
      queueDir = dirs.crash;
      expect(queued()).toHaveLength(2000);
      const child = spawnCli(['flush'], crash.token);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // Kill after the first batch has left the queue, at a varying point of the next one.
      const deadline = Date.now() + 60_000;
      while (queued().length === 2000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 100)));
      child.kill('SIGKILL');
      expect(await exited).toBeNull(); // killed, not finished
      const left = queued().length;
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThan(2000);
      expect(existsSync(join(queueDir, 'flush.lock'))).toBe(true); // left behind by the dead process

      const again = await cli(['flush', '--json'], crash.token);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ sent: left, remaining: 0 });
      const events = await timeline(crash.token, 'offline');
      expect(events).toHaveLength(2000);
      expect(new Set(events.map((e) => e.external_id)).size).toBe(2000);
    });

    it('keeps every line of CLIs queueing at once, and two CLIs flushing at once send each event once', async () => {
      queueDir = dirs.twice;
      expect(queued()).toHaveLength(500);
      expect(queued().filter((e) => e.event.external_id.startsWith('p-'))).toHaveLength(8);
      const [a, b] = await Promise.all([cli(['flush', '--json'], twice.token), cli(['flush', '--json'], twice.token)]);
      expect([a.code, b.code]).toEqual([0, 0]);
      const sent = [a, b].map((r) => (JSON.parse(r.stdout) as { sent: number; deduplicated: number }).sent).sort((x, y) => x - y);
      expect(sent).toEqual([0, 500]); // the flush lock: the second waited for the first, then found nothing left
      const events = await timeline(twice.token, 'offline');
      expect(events).toHaveLength(500);
      expect(new Set(events.map((e) => e.external_id)).size).toBe(500);
    });

    it('queues on 503 (a service down behind the gateway) and flushes on the next successful call', async () => {
      const m = member('svc503');
      await ingestion.stop();
      try {
        const res = await cli(['event', 'build', '--source', 'outage', '--external-id', 'b-1'], m.token);
        expect(res.code).toBe(6);
        expect(res.stderr).toMatch(/503|UNAVAILABLE/);
        expect(queued().map((e) => e.event.external_id)).toEqual(['b-1']);
      } finally {
        ingestion = await startAppProcess('ingestion', {}, 120_000);
      }
      // Wait until ingestion consumes its commands again (a probe event of another member goes through).
      const probe = member('probe');
      const deadline = Date.now() + 60_000;
      while (
        (await call(gateway.url, 'POST', '/v1/activity/events', { token: probe.token, body: { event_type: 'probe' } })).status !== 202
      ) {
        if (Date.now() > deadline) throw new Error('ingestion did not come back');
      }
      const me = await cli(['me'], m.token);
      expect(me.code).toBe(0);
      expect(me.stderr).toMatch(/sent 1 queued events; 0 still queued/);
      expect(queued()).toEqual([]);
      expect((await timeline(m.token, 'outage')).map((e) => e.external_id)).toEqual(['b-1']);
    });
  });
});
