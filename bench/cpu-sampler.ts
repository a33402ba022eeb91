/**
 * CPU per unit of work, per process of the stack, for the benchmarks.
 *
 * Reads utime + stime (all threads of a process) from /proc/<pid>/stat at the
 * start and the end of the measured window and splits the difference by
 * process group:
 *
 * - the app processes of this checkout: the node processes the bench started,
 *   or, when it uses a stack that was already running, every node process
 *   whose command line runs `dist/apps/<app>/…` or `dist/scripts/services-host.js`
 *   (the one process `npm start` hosts the six services in) and whose working directory is
 *   this checkout (other checkouts' stacks on the same machine are left out
 *   and shown on their own line, not counted);
 * - postgres: the postmaster and all its children (every backend, the WAL
 *   writer, the checkpointer…), with the share of the backends connected to
 *   the bench's database shown beside it;
 * - kafka: the broker JVM(s) (java … kafka) serving the stack's KAFKA_BROKERS
 *   (default 127.0.0.1:9092): a broker whose server.properties (its last
 *   argument) listens on another port — another checkout's fault or chaos
 *   cluster — is shown on its own line and not counted;
 * - redis: redis-server.
 *
 * Linux only (USER_HZ = 100, as on every mainstream kernel). The same grouping
 * as /work/shared/tools/cpu-per-unit.mjs for postgres, kafka and redis, so the
 * two agree when no other stack runs on the machine; the sampler itself (this
 * process) is never counted.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Client } from 'pg';
import { repoRoot } from '@worktrack/testing';

const USER_HZ = 100;

interface ProcInfo {
  group: string;
  ticks: number;
}

export interface CpuWindow {
  seconds: number;
  /** CPU milliseconds per group over the window. */
  byGroup: Record<string, number>;
  /** CPU milliseconds of the postgres backends connected to the bench's database. */
  databaseBackendsMs?: number;
  /** CPU milliseconds of other checkouts' app processes (not in byGroup, not counted). */
  othersMs: number;
  /** CPU milliseconds of brokers that do not serve KAFKA_BROKERS (not in byGroup, not counted). */
  otherBrokersMs: number;
  totalMs: number;
}

function readProc(pid: string): { cmd: string; comm: string; ppid: number; ticks: number } | undefined {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    // After "pid (comm) ": state=0, ppid=1, …, utime=11, stime=12 (proc(5) fields 14 and 15).
    return { cmd, comm, ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined; // exited while we looked
  }
}

/** The ports of the brokers the stack uses (KAFKA_BROKERS, as the apps read it). */
const brokerPorts = new Set((process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',').map((b) => b.trim().split(':').pop()));

/** Whether a broker JVM listens on one of the stack's broker ports (its server.properties' listeners); unknown counts. */
function servesStack(cmd: string): boolean {
  const properties = cmd.split(' ').pop() ?? '';
  if (!properties.endsWith('.properties')) return true;
  try {
    const listeners = /^listeners=(.*)$/m.exec(readFileSync(properties, 'utf8'))?.[1] ?? '';
    return [...listeners.matchAll(/PLAINTEXT:\/\/[^:,]*:(\d+)/g)].some((m) => brokerPorts.has(m[1]));
  } catch {
    return true;
  }
}

function cwdOf(pid: string): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

export class CpuSampler {
  private readonly root = repoRoot();
  private databasePids = new Set<number>();
  private readonly observers = new Set<number>();

  /**
   * @param appPids app name → pid of the processes the bench started itself
   *   (empty: discover this checkout's running apps).
   * @param databaseUrl the bench's database, to single out its backends.
   */
  constructor(
    private readonly appPids: Map<number, string> = new Map(),
    private readonly databaseUrl?: string,
  ) {}

  private group(pid: string, p: { cmd: string; comm: string }): string | undefined {
    const own = this.appPids.get(Number(pid));
    if (own) return own;
    // An app of its own (`dist/apps/<app>/…`) or, as `npm start` runs them, the services' host.
    const app = /(?:^|[\s/])dist\/(?:apps\/([\w-]+)\/|scripts\/(services-host)\.js)/.exec(p.cmd);
    if (/^(\S*\/)?node\b/.test(p.cmd) && app) {
      if (this.appPids.size === 0 && cwdOf(pid) === this.root) return app[1] ?? app[2];
      return 'other-checkouts';
    }
    if (/^(\S*\/)?java\b/.test(p.cmd) && /kafka/i.test(p.cmd)) return servesStack(p.cmd) ? 'kafka' : 'other-brokers';
    if (p.comm === 'postgres' || /^postgres(:|\s|$)/.test(p.cmd) || /\/postgres\b/.test(p.cmd.split(' ')[0])) return 'postgres';
    if (/^(\S*\/)?redis-server\b/.test(p.cmd)) return 'redis';
    return undefined;
  }

  /**
   * Leaves a Postgres backend out of every window: the bench's own connection
   * that watches the stack catch up. Its queries (a count over a table that
   * grows run after run) are the bench's cost, not the stack's.
   */
  async excludeObserver(client: Client): Promise<void> {
    const rows = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    this.observers.add(rows.rows[0].pid);
  }

  snapshot(): Map<string, ProcInfo> {
    const out = new Map<string, ProcInfo>();
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid) || Number(pid) === process.pid || this.observers.has(Number(pid))) continue;
      const p = readProc(pid);
      if (!p) continue;
      const group = this.group(pid, p);
      if (group) out.set(pid, { group, ticks: p.ticks });
    }
    return out;
  }

  /** The pids of the postgres backends connected to the bench's database (their pool is long-lived). */
  private async refreshDatabasePids(): Promise<void> {
    if (!this.databaseUrl) return;
    const client = new Client({ connectionString: this.databaseUrl });
    await client.connect();
    try {
      const rows = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      for (const r of rows.rows) this.databasePids.add(r.pid);
    } finally {
      await client.end();
    }
  }

  /** Starts a window; `end()` of the returned handle closes it. */
  async start(): Promise<{ end: () => Promise<CpuWindow> }> {
    await this.refreshDatabasePids();
    const before = this.snapshot();
    const t0 = performance.now();
    return {
      end: async () => {
        const after = this.snapshot();
        const seconds = (performance.now() - t0) / 1000;
        await this.refreshDatabasePids();
        const byGroup: Record<string, number> = {};
        let othersMs = 0;
        let otherBrokersMs = 0;
        let databaseBackendsMs = 0;
        for (const [pid, p] of after) {
          const ms = ((p.ticks - (before.get(pid)?.ticks ?? 0)) * 1000) / USER_HZ;
          if (p.group === 'other-checkouts') othersMs += ms;
          else if (p.group === 'other-brokers') otherBrokersMs += ms;
          else byGroup[p.group] = (byGroup[p.group] ?? 0) + ms;
          if (p.group === 'postgres' && this.databasePids.has(Number(pid))) databaseBackendsMs += ms;
        }
        const totalMs = Object.values(byGroup).reduce((a, b) => a + b, 0);
        return {
          seconds,
          byGroup,
          othersMs,
          otherBrokersMs,
          totalMs,
          databaseBackendsMs: this.databaseUrl ? databaseBackendsMs : undefined,
        };
      },
    };
  }
}

/** The lines the benchmarks print: each group's share of a core and its CPU ms per unit, then the total. */
export function formatCpu(w: CpuWindow, units: number, unit: string): string[] {
  const lines: string[] = [];
  const per = (ms: number): string => (units > 0 ? `${(ms / units).toFixed(2).padStart(7)} ms per ${unit}` : '');
  const pct = (ms: number): string => `${((ms / w.seconds / 1000) * 100).toFixed(1).padStart(6)} % of a core`;
  for (const [group, ms] of Object.entries(w.byGroup).sort((a, b) => b[1] - a[1])) {
    lines.push(`  cpu ${group.padEnd(12)} ${pct(ms)}  ${per(ms)}`);
    if (group === 'postgres' && w.databaseBackendsMs !== undefined)
      lines.push(
        `      ${'(this db)'.padEnd(12)} ${pct(w.databaseBackendsMs)}  ${per(w.databaseBackendsMs)}  (backends of the bench's database)`,
      );
  }
  lines.push(`  cpu ${'TOTAL'.padEnd(12)} ${pct(w.totalMs)}  ${per(w.totalMs)}`);
  if (w.othersMs > 0) lines.push(`  (not counted: other checkouts' app processes on the machine, ${pct(w.othersMs)})`);
  if (w.otherBrokersMs > 0) lines.push(`  (not counted: brokers on other ports, e.g. fault or chaos clusters, ${pct(w.otherBrokersMs)})`);
  return lines;
}
