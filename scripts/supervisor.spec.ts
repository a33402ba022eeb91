import { spawn } from 'node:child_process';
import { join } from 'node:path';

// `npm start` supervises. scripts/supervisor.mjs is an ES module; it
// runs here in a Node process of its own, supervising real child processes.

const script = join(__dirname, 'supervisor.mjs');

/** Runs `body` (ES module code with `Supervisor` and `restartDelayMs` in scope); resolves with its stdout lines. */
function harness(body: string, timeoutMs = 20_000): Promise<string[]> {
  const code = `import { Supervisor, restartDelayMs } from ${JSON.stringify(script)};\n${body}`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (status) => {
      clearTimeout(timer);
      if (status === 0) resolve(out.split('\n').filter(Boolean));
      else reject(new Error(`harness exited ${status}: ${err}\n${out}`));
    });
  });
}

describe('scripts/supervisor.mjs', () => {
  it('restart delays: 1 s after a failure, doubling while the app keeps failing, at most 30 s', async () => {
    const [line] = await harness(`console.log(JSON.stringify([1, 2, 3, 4, 5, 6, 7, 50].map((n) => restartDelayMs(n))));`);
    expect(JSON.parse(line)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('restarts an app that keeps exiting with a growing, capped backoff and a line saying why; the others keep running; stop drains all', async () => {
    // "crashy" logs an error line (as the apps' pino does) and exits 3 at once; "steady" runs until SIGTERM.
    const lines = await harness(`
      const s = new Supervisor({ log: (l) => console.log(l), baseMs: 100, capMs: 400 });
      const starts = { crashy: [], steady: [] };
      const node = process.execPath;
      s.add('crashy', {
        command: node,
        args: ['-e', 'console.log(JSON.stringify({ level: "error", msg: "cannot bind", reason: "EADDRINUSE" })); process.exit(3)'],
        onStart: (c) => starts.crashy.push(c.pid),
      });
      s.add('steady', {
        command: node,
        args: ['-e', 'setInterval(() => {}, 1000); process.on("SIGTERM", () => { console.log("steady drained"); process.exit(0); })'],
        onStart: (c) => starts.steady.push(c.pid),
        onOutput: (chunk) => process.stdout.write(chunk),
      });
      while (s.restarts('crashy') < 4) await new Promise((r) => setTimeout(r, 20));
      const steady = s.child('steady');
      await s.stop(5000);
      await new Promise((r) => setTimeout(r, 600)); // a restart still pending would fire within the cap
      console.log(JSON.stringify({ starts, steadyExit: steady.exitCode, steadyPidNow: s.child('steady')?.pid ?? null }));
    `);
    const restarts = lines.filter((l) => l.startsWith('[supervisor] crashy'));
    expect(restarts.length).toBeGreaterThanOrEqual(4);
    // Why (code and the last error it logged) and when, with the delay doubling from 0.1 s to the 0.4 s cap.
    expect(restarts.slice(0, 4).map((l) => l.replace(/after [\d.]+ s/, 'after N s'))).toEqual([
      '[supervisor] crashy exited with code 3 after N s; last error: cannot bind: EADDRINUSE; restarting in 0.1 s (restart 1)',
      '[supervisor] crashy exited with code 3 after N s; last error: cannot bind: EADDRINUSE; restarting in 0.2 s (restart 2)',
      '[supervisor] crashy exited with code 3 after N s; last error: cannot bind: EADDRINUSE; restarting in 0.4 s (restart 3)',
      '[supervisor] crashy exited with code 3 after N s; last error: cannot bind: EADDRINUSE; restarting in 0.4 s (restart 4)',
    ]);
    const result = JSON.parse(lines[lines.length - 1]) as {
      starts: { crashy: number[]; steady: number[] };
      steadyExit: number | null;
      steadyPidNow: number | null;
    };
    // The other app was started once and never touched by the crashes.
    expect(result.starts.steady).toHaveLength(1);
    expect(result.starts.crashy.length).toBeGreaterThanOrEqual(5);
    // stop(): SIGTERM drained the running app, and nothing was restarted afterwards.
    expect(lines).toContain('steady drained');
    expect(result.steadyExit).toBe(0);
    expect(result.steadyPidNow).toBeNull();
    expect(lines.filter((l) => l.startsWith('[supervisor] steady'))).toEqual([]);
  });
});
