// Process supervision for `npm start` (and the fault test): runs each app as
// a child process, restarts one that exits with a backoff and a log line
// saying why, and leaves the others serving. stop() drains every app
// (SIGTERM) and restarts nothing.
import { spawn } from 'node:child_process';

/** Restart delay after the n-th consecutive failure: 1 s doubling, at most 30 s. */
export const restartDelayMs = (failures, { baseMs = 1_000, capMs = 30_000 } = {}) =>
  Math.min(baseMs * 2 ** Math.max(0, failures - 1), capMs);

/** A run longer than this was healthy: the next exit restarts at the base delay again. */
const HEALTHY_RUN_MS = 60_000;

export class Supervisor {
  /**
   * @param {object} options
   * @param {(line: string) => void} [options.log] where the supervisor's own lines go
   * @param {number} [options.baseMs] first restart delay
   * @param {number} [options.capMs] longest restart delay
   */
  constructor({ log = (line) => console.error(line), baseMs = 1_000, capMs = 30_000 } = {}) {
    this.log = log;
    this.baseMs = baseMs;
    this.capMs = capMs;
    this.apps = new Map();
    this.stopping = false;
  }

  /**
   * Starts `name` and keeps it running.
   * @param {string} name
   * @param {{ command: string, args: string[], cwd?: string, env?: NodeJS.ProcessEnv, onOutput?: (chunk: Buffer) => void, onStart?: (child: import('node:child_process').ChildProcess) => void }} spec
   */
  add(name, spec) {
    const entry = { name, spec, child: undefined, failures: 0, restarts: 0, startedAt: 0, lastError: '', timer: undefined };
    this.apps.set(name, entry);
    this.#spawn(entry);
    return entry;
  }

  /** The running child of `name` (undefined while it waits to be restarted). */
  child(name) {
    return this.apps.get(name)?.child;
  }

  restarts(name) {
    return this.apps.get(name)?.restarts ?? 0;
  }

  #spawn(entry) {
    const { spec } = entry;
    const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'] });
    entry.child = child;
    entry.startedAt = Date.now();
    const watch = (chunk) => {
      spec.onOutput?.(chunk);
      // The last error the app logged is the likeliest reason it exits.
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.includes('"level":"error"') && !line.includes('"level":"fatal"')) continue;
        try {
          const entryLine = JSON.parse(line);
          entry.lastError = [entryLine.msg, entryLine.reason ?? entryLine.err?.message ?? entryLine.err].filter(Boolean).join(': ');
        } catch {
          entry.lastError = line.slice(0, 300);
        }
      }
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    child.on('error', (err) => {
      entry.lastError = `spawn failed: ${err.message}`;
    });
    child.on('exit', (code, signal) => this.#exited(entry, child, code, signal));
    spec.onStart?.(child);
  }

  #exited(entry, child, code, signal) {
    if (entry.child !== child) return;
    entry.child = undefined;
    if (this.stopping) return;
    const ranMs = Date.now() - entry.startedAt;
    entry.failures = ranMs >= HEALTHY_RUN_MS ? 1 : entry.failures + 1;
    const delay = restartDelayMs(entry.failures, { baseMs: this.baseMs, capMs: this.capMs });
    const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
    const why = entry.lastError ? `; last error: ${entry.lastError}` : '';
    this.log(
      `[supervisor] ${entry.name} ${how} after ${(ranMs / 1000).toFixed(1)} s${why}; restarting in ${(delay / 1000).toFixed(1)} s (restart ${entry.restarts + 1})`,
    );
    entry.lastError = '';
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (this.stopping) return;
      entry.restarts++;
      this.#spawn(entry);
    }, delay);
  }

  /** Drains every app (SIGTERM), kills what is still running after `timeoutMs`, restarts nothing. */
  async stop(timeoutMs = 20_000) {
    this.stopping = true;
    const running = [];
    for (const entry of this.apps.values()) {
      clearTimeout(entry.timer);
      const child = entry.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) continue;
      running.push(
        new Promise((resolve) => {
          child.once('exit', resolve);
          child.kill('SIGTERM');
        }),
      );
    }
    let timer;
    await Promise.race([Promise.all(running), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    for (const entry of this.apps.values()) {
      const child = entry.child;
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }
}
