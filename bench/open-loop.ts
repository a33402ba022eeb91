import type { CpuSampler, CpuWindow } from './cpu-sampler';

/** What an open loop measured: latency from each request's due time, answers by status, the achieved rate and the CPU window. */
export interface OpenLoopRun {
  ms: number[];
  statuses: Map<number, number>;
  rps: number;
  cpu: CpuWindow;
}

/**
 * An open loop: request n is due at start + n / rate whatever the answers do,
 * so a slow answer shows as latency instead of slowing the offered load.
 * `send(n)` makes request n and resolves with its HTTP status. The first
 * `warmup` seconds are not measured; the CPU window covers the measured
 * requests until the last answer. Latencies come back sorted.
 */
export async function openLoop(
  options: { rate: number; seconds: number; warmup: number; sampler: CpuSampler },
  send: (n: number) => Promise<number>,
): Promise<OpenLoopRun> {
  const { rate, seconds, warmup: warmupSeconds, sampler } = options;
  const total = Math.round(rate * (warmupSeconds + seconds));
  const warmup = Math.round(rate * warmupSeconds);
  const interval = 1000 / rate;
  const ms: number[] = [];
  const statuses = new Map<number, number>();
  const pending: Array<Promise<void>> = [];
  let window: Awaited<ReturnType<CpuSampler['start']>> | undefined;
  let from = 0;
  let to = 0;
  const t0 = performance.now() + 100;
  for (let n = 0; n < total; n++) {
    const due = t0 + n * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (n === warmup) {
      window = await sampler.start();
      from = performance.now();
    }
    const measured = n >= warmup;
    pending.push(
      send(n).then((status) => {
        if (!measured) return;
        to = performance.now();
        ms.push(to - due);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }),
    );
  }
  await Promise.all(pending);
  const cpu = await (window ?? (await sampler.start())).end();
  ms.sort((a, b) => a - b);
  return { ms, statuses, rps: ms.length / ((to - from) / 1000), cpu };
}
