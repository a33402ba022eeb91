import { createServer } from 'node:net';
import type { AppLogger } from '../logging/logger';
import { StartingProbes, startupBackoffMs, waitForDependencies } from './dependencies';

// An app waits for its dependencies with bounded backoff, reporting
// not-ready meanwhile, instead of exiting.

function recordingLogger(): { logger: AppLogger; lines: Array<{ level: string; msg: string; obj: unknown }> } {
  const lines: Array<{ level: string; msg: string; obj: unknown }> = [];
  const at =
    (level: string) =>
    (obj: unknown, msg: string): void => {
      lines.push({ level, msg, obj });
    };
  return { logger: { info: at('info'), warn: at('warn') } as unknown as AppLogger, lines };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('waiting for dependencies', () => {
  it('backs off 250 ms doubling, bounded by 5 s (or the cap given)', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 100].map((n) => startupBackoffMs(n))).toEqual([250, 500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000]);
    expect(startupBackoffMs(10, 20)).toBe(20);
  });

  it('retries until every dependency answers, naming what it waits for meanwhile, and logs a change once, not every attempt', async () => {
    const probes = new StartingProbes();
    const { logger, lines } = recordingLogger();
    let kafkaCalls = 0;
    let postgresCalls = 0;
    const seenWaiting: string[][] = [];
    await waitForDependencies(
      {
        kafka: () => {
          kafkaCalls++;
          seenWaiting.push(Object.keys(probes.waitingFor));
          return kafkaCalls <= 3 ? Promise.reject(new Error('ECONNREFUSED 127.0.0.1:9092')) : Promise.resolve();
        },
        postgres: () => {
          postgresCalls++;
          return postgresCalls <= 1 ? Promise.reject(new Error('the database system is starting up')) : Promise.resolve();
        },
      },
      logger,
      probes,
      { capMs: 5 },
    );
    expect(kafkaCalls).toBe(4);
    expect(postgresCalls).toBe(4);
    // What /readyz names: both after the first attempt, then kafka alone; nothing once they answer.
    expect(seenWaiting).toEqual([[], ['kafka', 'postgres'], ['kafka'], ['kafka']]);
    expect(probes.waitingFor).toEqual({});
    expect(lines.map((l) => `${l.level} ${l.msg}`)).toEqual([
      'warn waiting for kafka, postgres',
      'warn waiting for kafka',
      'info dependencies answer; starting',
    ]);
    expect(lines[0].obj).toMatchObject({
      waitingFor: { kafka: 'ECONNREFUSED 127.0.0.1:9092', postgres: 'the database system is starting up' },
      attempt: 1,
    });
  });

  it('the start-up probes: /healthz 200, everything else 503 UNAVAILABLE with Retry-After naming what it waits for', async () => {
    const probes = new StartingProbes();
    const port = await freePort();
    await probes.listen(port);
    try {
      probes.waitingFor = { postgres: 'connect ECONNREFUSED 127.0.0.1:5432' };
      const healthz = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(healthz.status).toBe(200);
      const readyz = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(readyz.status).toBe(503);
      expect(readyz.headers.get('retry-after')).toBe('1');
      expect(await readyz.json()).toEqual({
        error: {
          code: 'UNAVAILABLE',
          message: 'Not ready: waiting for postgres.',
          details: [{ path: 'postgres', issue: 'connect ECONNREFUSED 127.0.0.1:5432' }],
        },
      });
      const other = await fetch(`http://127.0.0.1:${port}/v1/me`);
      expect(other.status).toBe(503);
    } finally {
      await probes.close();
    }
    // Closed: the port is free for the app.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});
