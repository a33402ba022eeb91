/**
 * The reporting projection's lag under load, read from outside as a bench
 * may: every `everyMs` it notes the end offsets of the topics the projection
 * reads (what the broker holds at that instant) and reads the positions the
 * projection stores with the facts it applies (`reporting.positions`, written
 * in the transaction that applies a partition's messages). A snapshot's lag is
 * the time from when it was noted until every partition's stored position
 * reached it: from a message on the topic to the projection having applied
 * it, at the resolution of `everyMs`.
 */
import type { Admin } from 'kafkajs';
import type { Client } from 'pg';

interface Snapshot {
  at: number;
  /** `<physical topic>|<partition>` → the end offset at `at` (partitions with messages only). */
  ends: Map<string, bigint>;
}

export interface LagFigures {
  /** Snapshots taken and applied. */
  samples: number;
  /** Snapshots not applied when the probe stopped. */
  pending: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export class ProjectionLagProbe {
  private readonly pending: Snapshot[] = [];
  private readonly lags: number[] = [];
  private timer?: NodeJS.Timeout;
  private busy = false;
  private caughtUpAt = -1;

  constructor(
    private readonly admin: Admin,
    private readonly db: Client,
    private readonly schema: string,
    private readonly topics: string[],
    private readonly everyMs = 100,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.everyMs);
  }

  /** Whether the projection had applied everything the topics held at the last tick. */
  get caughtUp(): boolean {
    return this.caughtUpAt >= 0 && this.pending.length === 0;
  }

  async stop(): Promise<LagFigures> {
    clearInterval(this.timer);
    while (this.busy) await new Promise((r) => setTimeout(r, 10));
    const sorted = [...this.lags].sort((a, b) => a - b);
    const pct = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? -1;
    return { samples: sorted.length, pending: this.pending.length, p50Ms: pct(0.5), p99Ms: pct(0.99), maxMs: sorted.at(-1) ?? -1 };
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const at = Date.now();
      const ends = new Map<string, bigint>();
      for (const topic of this.topics) {
        for (const p of await this.admin.fetchTopicOffsets(topic)) {
          if (BigInt(p.high) > BigInt(p.low)) ends.set(`${topic}|${p.partition}`, BigInt(p.high));
        }
      }
      this.pending.push({ at, ends });
      const { rows } = await this.db.query<{ topic: string; partition: number; next_offset: string }>(
        `SELECT topic, partition, next_offset FROM "${this.schema}".positions WHERE topic = ANY($1::text[])`,
        [this.topics],
      );
      const now = Date.now();
      const positions = new Map(rows.map((r) => [`${r.topic}|${r.partition}`, BigInt(r.next_offset)]));
      while (this.pending.length > 0) {
        const oldest = this.pending[0];
        if (![...oldest.ends].every(([key, end]) => (positions.get(key) ?? 0n) >= end)) break;
        this.lags.push(now - oldest.at);
        this.pending.shift();
      }
      if (this.pending.length === 0) this.caughtUpAt = now;
    } catch {
      // the schema may not exist yet (migrations run at start-up): the next tick tries again
    } finally {
      this.busy = false;
    }
  }
}
