import { createLogger } from '../logging/logger';
import { backoffMs } from './backoff';
import { WorkLoop } from './work-loop';

const logger = createLogger('work-loop', 'silent', 'work-loop');
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('WorkLoop', () => {
  it('steps every interval, at once again while a step reports more work, and after a failure waits the interval', async () => {
    const at: number[] = [];
    const start = Date.now();
    let calls = 0;
    const loop = new WorkLoop({ name: 'test', intervalMs: 60, logger }, () => {
      calls++;
      at.push(Date.now() - start);
      if (calls === 2) return Promise.reject(new Error('boom'));
      return Promise.resolve(calls === 3); // the third reports more: the fourth follows at once
    });
    loop.start();
    await wait(400);
    await loop.stop();
    expect(at.length).toBeGreaterThanOrEqual(4);
    expect(at[0]).toBeGreaterThanOrEqual(55); // one interval after start
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(55);
    expect(at[2] - at[1]).toBeGreaterThanOrEqual(55); // after the failure, the interval
    expect(at[3] - at[2]).toBeLessThan(40); // more work: at once
  });

  it('runs a step at once on kick, never two at a time, and drains the one in progress on stop', async () => {
    let running = 0;
    let most = 0;
    let finished = 0;
    const loop = new WorkLoop({ name: 'test', intervalMs: 10_000, logger }, async () => {
      running++;
      most = Math.max(most, running);
      await wait(50);
      running--;
      finished++;
      return false;
    });
    loop.start();
    loop.kick();
    await wait(10);
    loop.kick(); // during the step: runs right after it
    loop.kick();
    await wait(80);
    expect(finished).toBe(1);
    await loop.stop(); // the second step is in progress: stop waits for it
    expect(finished).toBe(2);
    expect(most).toBe(1);
    loop.kick(); // stopped: nothing
    await wait(20);
    expect(finished).toBe(2);
  });

  it('spreads its pauses over ±jitter of the interval', async () => {
    const at: number[] = [];
    const loop = new WorkLoop({ name: 'test', intervalMs: 40, jitter: 0.5, logger }, () => {
      at.push(Date.now());
      return Promise.resolve(false);
    });
    loop.start();
    await wait(500);
    await loop.stop();
    const pauses = at.slice(1).map((t, i) => t - at[i]);
    expect(pauses.length).toBeGreaterThan(4);
    for (const p of pauses) expect(p).toBeGreaterThanOrEqual(18);
  });
});

describe('backoffMs', () => {
  it('doubles from the first delay up to the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 50].map((step) => backoffMs(step, { firstMs: 100, capMs: 1_000 }))).toEqual([
      100, 200, 400, 800, 1_000, 1_000, 1_000,
    ]);
  });

  it('keeps a jittered delay within ±jitter and the cap', () => {
    for (let i = 0; i < 200; i++) {
      const d = backoffMs(2, { firstMs: 100, capMs: 450, jitter: 0.2 });
      expect(d).toBeGreaterThanOrEqual(320);
      expect(d).toBeLessThanOrEqual(450);
    }
  });
});
